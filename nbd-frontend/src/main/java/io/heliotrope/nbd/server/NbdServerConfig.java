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
    /**
     * Long enough to catch the next request of a client that keeps many in flight, short
     * enough that a client whose requests come further apart, a guest's, does not have a
     * core spin for it: on 2 cores shared with the client, random 4 KiB over NBD at QD32
     * from a disk ran 50-56K writes/s and 95-131K reads/s polling 50 us, 30-37K and 72-91K
     * polling 500 us, 37-38K and 66-69K never polling.
     */
    public static final Duration DEFAULT_POLL = Duration.ofNanos(50_000);
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
