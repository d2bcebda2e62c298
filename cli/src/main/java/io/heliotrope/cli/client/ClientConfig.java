package io.heliotrope.cli.client;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code helio} commands talk to when no flag and no {@code HELIO_CONTROLLER} says:
 * the file {@code $XDG_CONFIG_HOME/heliotrope/client.yaml} ({@code ~/.config/...} by
 * default), which {@code helio up} writes once its controller serves:
 * <pre>{@code
 * controller: "127.0.0.1:7400"
 * }</pre>
 * or, for several controllers of one ensemble (the first that answers is used),
 * {@code controller: "127.0.0.1:7400,127.0.0.1:7401,127.0.0.1:7402"}.
 */
public record ClientConfig(String controller) {
    private static final ObjectMapper MAPPER = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .build();
    private static final String HEADER = "# Written by helio up: the controller that helio commands talk to by default.\n";

    /** This user's file, where {@code helio up} writes it and every command reads it. */
    public static Path defaultPath() {
        return path(System.getenv(), Path.of(System.getProperty("user.home")));
    }

    /**
     * Makes {@code controller} the one that {@code helio} commands talk to by default. A file
     * that cannot be written is reported on stderr and does not stop the caller.
     */
    public static void save(String controller) {
        Path file = defaultPath();
        try {
            new ClientConfig(controller).write(file);
        } catch (UncheckedIOException e) {
            System.err.println("helio: warning: " + e.getMessage() + " (" + HeliotropeException.rootMessage(e)
                    + "): other helio commands will not find this controller by themselves");
        }
    }

    /** The file under {@code XDG_CONFIG_HOME} when it is an absolute path (as the XDG spec requires), else under {@code home/.config}. */
    static Path path(Map<String, String> env, Path home) {
        String configHome = env.getOrDefault("XDG_CONFIG_HOME", "");
        Path base = configHome.isEmpty() || !Path.of(configHome).isAbsolute() ? home.resolve(".config") : Path.of(configHome);
        return base.resolve("heliotrope").resolve("client.yaml");
    }

    /** The file at {@code file}, or empty when there is none; a file that is there but not valid is the user's to fix. */
    static Optional<ClientConfig> read(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            ClientConfig config = MAPPER.readValue(file.toFile(), ClientConfig.class);
            if (config.controller() == null || config.controller().isBlank()) {
                throw new IllegalArgumentException("it names no controller (controller: HOST:PORT)");
            }
            return Optional.of(config);
        } catch (IOException | IllegalArgumentException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid client configuration " + file + ": " + HeliotropeException.rootMessage(e), e);
        }
    }

    /** Replaces {@code file} in one step (a reader sees the old file or the new one), making its directory if needed. */
    void write(Path file) {
        try {
            Files.createDirectories(file.getParent());
            Path next = Files.createTempFile(file.getParent(), "client", ".yaml.tmp");
            try {
                Files.writeString(next, HEADER + MAPPER.writeValueAsString(this));
                Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(next);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the client configuration " + file, e);
        }
    }
}
