package io.heliotrope.scheduler.runner;

import java.io.IOException;
import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * How a VM was started, kept in its directory so that a runner that restarts knows its disks
 * and whether it is a migration's destination.
 *
 * @param migrationPort the index of the migration port it listens on, or -1
 * @param consoleStart the size of console.log when it started: where its console begins (QEMU appends to the log of earlier runs)
 */
public record LaunchRecord(VmDefinition definition, boolean incoming, int migrationPort, long startedEpochMillis, long consoleStart) {
    public LaunchRecord {
        requireNonNull(definition, "definition is null");
    }

    public void write(Path file) throws IOException {
        JsonFiles.write(file, this);
    }

    public static LaunchRecord read(Path file) throws IOException {
        return JsonFiles.read(file, LaunchRecord.class);
    }
}
