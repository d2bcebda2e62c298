package io.heliotrope.controller.cluster;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/** How often the cluster view asks each site for its status, and how long it waits for the answer. */
public record ClusterViewConfig(Duration pollInterval, Duration callTimeout) {
    /** A site that stops answering shows as down within 3 s; an answer takes a few ms on a LAN, one WAN round trip at most. */
    public static final ClusterViewConfig DEFAULT = new ClusterViewConfig(Duration.ofSeconds(2), Duration.ofSeconds(1));

    public ClusterViewConfig {
        requireNonNull(pollInterval, "pollInterval is null");
        requireNonNull(callTimeout, "callTimeout is null");
        if (pollInterval.isNegative() || pollInterval.isZero() || callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("poll interval and call timeout must be positive: " + pollInterval + ", " + callTimeout);
        }
    }
}
