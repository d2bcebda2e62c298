package io.heliotrope.storage.propagation;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How a site's pushers work.
 *
 * @param batchBlocks the most blocks in one push (256: 1 MiB of data)
 * @param pushesInFlight the most pushes of one image under way at once. A push takes a
 *        round trip plus its transfer, so one image sends at most
 *        {@code pushesInFlight * batch / (rtt + batch / link)}: with 16 and 1 MiB batches,
 *        about 200 MB/s over a 75 ms round trip, more than a 1 Gbit/s link carries
 * @param pause how long a pusher waits after drawing "not now" from the transition row
 * @param firstBackoff the wait after a failed push to a site; it doubles per failure
 * @param longestBackoff the longest wait after failed pushes
 * @param trackedBlocks past this many blocks with counts, reads of blocks not yet counted
 *        are not counted (about 40 bytes of heap each); writes always are
 */
public record PropagationConfig(int batchBlocks, int pushesInFlight, Duration pause, Duration firstBackoff, Duration longestBackoff, int trackedBlocks) {
    public static final PropagationConfig DEFAULT =
            new PropagationConfig(256, 16, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), 1 << 22);

    public PropagationConfig {
        requireNonNull(pause, "pause is null");
        requireNonNull(firstBackoff, "firstBackoff is null");
        requireNonNull(longestBackoff, "longestBackoff is null");
        if (batchBlocks < 1 || pushesInFlight < 1 || trackedBlocks < 0) {
            throw new IllegalArgumentException("batchBlocks and pushesInFlight must be positive, trackedBlocks not negative");
        }
        if (pause.isNegative() || firstBackoff.isNegative() || longestBackoff.compareTo(firstBackoff) < 0) {
            throw new IllegalArgumentException("pause and backoffs must not be negative, nor the longest backoff shorter than the first");
        }
    }
}
