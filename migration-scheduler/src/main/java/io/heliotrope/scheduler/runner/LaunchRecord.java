package io.heliotrope.scheduler.runner;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static java.util.Objects.requireNonNull;

/**
 * How a VM was started, kept in its directory so that a runner that restarts knows its disks
 * and whether it is a migration's destination.
 *
 * @param migrationPort the index of the migration port it listens on, or -1
 */
public record LaunchRecord(VmDefinition definition, boolean incoming, int migrationPort, long startedEpochMillis) {
    private static final ObjectMapper MAPPER = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    public LaunchRecord {
        requireNonNull(definition, "definition is null");
    }

    public void write(Path file) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        MAPPER.writeValue(temporary.toFile(), this);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public static LaunchRecord read(Path file) throws IOException {
        return MAPPER.readValue(file.toFile(), LaunchRecord.class);
    }
}
