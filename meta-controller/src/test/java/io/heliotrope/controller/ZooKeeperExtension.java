package io.heliotrope.controller;

import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Resolves an {@link EmbeddedZooKeeper} parameter: one real server for the whole test run,
 * stopped and deleted at its end. Tests keep apart by using their own root path.
 */
public final class ZooKeeperExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ZooKeeperExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == EmbeddedZooKeeper.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent("server", key -> start(), Server.class).zooKeeper();
    }

    private static Server start() {
        try {
            Path directory = Files.createTempDirectory("heliotrope-zookeeper");
            return new Server(directory, EmbeddedZooKeeper.start(directory, 0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Server(Path directory, EmbeddedZooKeeper zooKeeper) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            zooKeeper.close();
            try (Stream<Path> files = Files.walk(directory)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
