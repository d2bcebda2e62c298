package io.heliotrope.nbd.server;

import java.net.InetSocketAddress;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * Where the NBD server listens, how many event-loop threads it runs, and for how long an
 * event loop polls for the next request before it sleeps ({@link PollingSelectStrategy}).
 */
public record NbdServerConfig(InetSocketAddress bindAddress, int ioThreads, Duration poll) {
    public static final int DEFAULT_PORT = 10809;
    public static final Duration DEFAULT_POLL = Duration.ofNanos(500_000);
    /** Polling longer than this would only keep an idle server's cores busy. */
    public static final Duration MAX_POLL = Duration.ofSeconds(1);

    public NbdServerConfig {
        requireNonNull(bindAddress, "bindAddress is null");
        requireNonNull(poll, "poll is null");
        if (poll.isNegative() || poll.compareTo(MAX_POLL) > 0) {
            throw new IllegalArgumentException("poll must be between 0 and " + MAX_POLL.toMillis() + " ms: " + poll);
        }
        if (ioThreads <= 0) {
            ioThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
        }
    }
}
