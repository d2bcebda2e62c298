package io.heliotrope.storage.peer.grpc;

import java.time.Duration;

import static java.util.Objects.requireNonNullElse;

/**
 * How this site calls its peers.
 *
 * @param connections TCP connections to each peer site, which calls take turns on: one
 *         connection through a WAN gets at most window / RTT (6 MiB / 75 ms = 84 MB/s, less
 *         than a 1 Gbit/s link), so a large fetch or push is spread over all of them
 * @param bulkConnections more connections to each peer site, for background pulls only, so
 *         that a foreground read's fetch never waits behind a pull's data in a connection's
 *         flow-control window: 2 carry 168 MB/s at 75 ms, more than a 1 Gbit/s link
 * @param timeout how long a fetch, push or ping may take before it fails with
 *         {@code PEER_UNAVAILABLE}: a peer that is down or cut off never hangs a reader
 */
public record GrpcPeersConfig(Integer connections, Integer bulkConnections, Duration timeout) {
    public GrpcPeersConfig {
        connections = requireNonNullElse(connections, 4);
        bulkConnections = requireNonNullElse(bulkConnections, 2);
        timeout = requireNonNullElse(timeout, Duration.ofSeconds(10));
        if (connections < 1 || bulkConnections < 1) {
            throw new IllegalArgumentException("connections and bulkConnections must be 1 or more: " + connections + ", " + bulkConnections);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
    }

    /** The default number of bulk connections. */
    public GrpcPeersConfig(Integer connections, Duration timeout) {
        this(connections, null, timeout);
    }
}
