package io.heliotrope.nbd.server;

import java.net.InetSocketAddress;

import static java.util.Objects.requireNonNull;

/** Where the NBD server listens and how many event-loop threads it runs. */
public record NbdServerConfig(InetSocketAddress bindAddress, int ioThreads) {
    public static final int DEFAULT_PORT = 10809;

    public NbdServerConfig {
        requireNonNull(bindAddress, "bindAddress is null");
        if (ioThreads <= 0) {
            ioThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
        }
    }
}
