package io.heliotrope.wan;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How each direction of a link behaves. A chunk of bytes departs when the link is free, occupies
 * it for its transmission time at {@code bandwidthBitsPerSecond}, and is delivered
 * {@code oneWayDelay} later; a connection may have at most {@code windowBytes} departed and not
 * yet acknowledged per direction, the acknowledgement taking another {@code oneWayDelay}. One
 * stream therefore gets {@code min(bandwidth, window / RTT)}, as over a real link.
 *
 * @param oneWayDelay propagation delay of each direction; the round trip is twice this
 * @param bandwidthBitsPerSecond capacity of each direction, shared by all connections of the
 *     link; 0 means no cap, else at least 1000
 * @param windowBytes per connection and direction, like a TCP receive window
 */
public record LinkConfig(Duration oneWayDelay, long bandwidthBitsPerSecond, int windowBytes) {
    /** Linux's default maximum TCP receive window ({@code net.ipv4.tcp_rmem}). */
    public static final int DEFAULT_WINDOW_BYTES = 6 * 1024 * 1024;

    private static final Duration MAX_DELAY = Duration.ofHours(1);
    private static final long MIN_BANDWIDTH = 1000;

    public LinkConfig {
        requireNonNull(oneWayDelay, "oneWayDelay is null");
        if (oneWayDelay.isNegative() || oneWayDelay.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException("oneWayDelay must be between 0 and 1h: " + oneWayDelay);
        }
        // The floor keeps a window's transmission time (2 GiB at most) within a long of nanoseconds.
        if (bandwidthBitsPerSecond < 0 || (bandwidthBitsPerSecond > 0 && bandwidthBitsPerSecond < MIN_BANDWIDTH)) {
            throw new IllegalArgumentException(
                    "bandwidthBitsPerSecond must be 0 (no cap) or at least 1kbit: " + bandwidthBitsPerSecond);
        }
        if (windowBytes <= 0) {
            throw new IllegalArgumentException("windowBytes must be positive: " + windowBytes);
        }
    }

    public LinkConfig(Duration oneWayDelay, long bandwidthBitsPerSecond) {
        this(oneWayDelay, bandwidthBitsPerSecond, DEFAULT_WINDOW_BYTES);
    }

    /** A link without delay or cap; only the window applies. */
    public static LinkConfig direct() {
        return new LinkConfig(Duration.ZERO, 0);
    }

    /**
     * A link described the way the command line does ({@code --wan-rtt 75ms --wan-bandwidth 1gbit}):
     * each direction gets half the round-trip time.
     */
    public static LinkConfig parse(String roundTrip, String bandwidth) {
        return new LinkConfig(WanUnits.parseDuration(roundTrip).dividedBy(2), WanUnits.parseBitRate(bandwidth));
    }

    public Duration roundTrip() {
        return oneWayDelay.multipliedBy(2);
    }

    public LinkConfig withOneWayDelay(Duration delay) {
        return new LinkConfig(delay, bandwidthBitsPerSecond, windowBytes);
    }

    public LinkConfig withBandwidth(long bitsPerSecond) {
        return new LinkConfig(oneWayDelay, bitsPerSecond, windowBytes);
    }

    public LinkConfig withWindow(int bytes) {
        return new LinkConfig(oneWayDelay, bandwidthBitsPerSecond, bytes);
    }

    /** How long {@code bytes} occupy one direction of the link; 0 without a cap. */
    long transmissionNanos(int bytes) {
        return bandwidthBitsPerSecond == 0 ? 0 : (long) Math.ceil(bytes * 8e9 / bandwidthBitsPerSecond);
    }
}
