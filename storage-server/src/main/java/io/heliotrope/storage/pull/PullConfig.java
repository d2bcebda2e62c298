package io.heliotrope.storage.pull;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How a site's background pulls work (DESIGN.md section 4).
 *
 * @param heatWait how long a pull waits for the other sites' heat before it takes the rest in block order
 * @param heatBlocks the most blocks of heat asked of each site (2^20: 4 GiB of hot blocks, at most 8 MB of answer)
 * @param missedGroups how many groups around this site's own misses wait to be pulled; the oldest go first when more come
 * @param groupBlocks the aligned group of blocks pulled around a miss (16: 64 KiB, a database's neighbouring pages)
 * @param target the queueing delay the window aims at on the path from a holder: what a foreground
 *        fetch on the same link waits behind pull data (50 ms, half of LEDBAT's largest: on a site
 *        whose two cores also run the database, a batch's latency varies by 10 to 40 ms without any
 *        queue; with PostgreSQL running, a 4 ms target held a pull to 15-50 MB/s over 1 Gbit/s at
 *        75 ms, 20 ms to 48 MB/s on average, 50 ms to 70-90 MB/s)
 * @param startWindow the window a pull starts with, in bytes, and doubles per round trip until the path queues
 * @param minWindow the smallest window
 * @param maxWindow the largest window (32 MiB: 3.4 x the bandwidth-delay product of 1 Gbit/s at 75 ms)
 * @param firstBackoff the longest first wait after a failed batch before that holder is asked again; it doubles
 *        per failure (each wait is drawn between half of it and all of it: see {@link io.heliotrope.storage.peer.Backoff})
 * @param longestBackoff the longest wait after failed batches; a batch that arrives ends it. It bounds how
 *        long a pull takes to resume once a holder that refused connections is back (5 s: a dead holder
 *        is asked one batch about every 5 s plus a peer timeout)
 */
public record PullConfig(Duration heatWait, int heatBlocks, int missedGroups, int groupBlocks, Duration target,
                         long startWindow, long minWindow, long maxWindow, Duration firstBackoff, Duration longestBackoff) {
    public static final PullConfig DEFAULT = new PullConfig(Duration.ofMillis(500), 1 << 20, 1 << 16, 16, Duration.ofMillis(50),
            1 << 20, 64 << 10, 32 << 20, Duration.ofMillis(200), Duration.ofSeconds(5));

    public PullConfig {
        requireNonNull(heatWait, "heatWait is null");
        requireNonNull(target, "target is null");
        requireNonNull(firstBackoff, "firstBackoff is null");
        requireNonNull(longestBackoff, "longestBackoff is null");
        if (heatBlocks < 0 || missedGroups < 1 || groupBlocks < 1 || Long.bitCount(groupBlocks) != 1) {
            throw new IllegalArgumentException("heatBlocks must not be negative, missedGroups positive, groupBlocks a power of 2");
        }
        if (minWindow < 1 || startWindow < minWindow || maxWindow < startWindow) {
            throw new IllegalArgumentException("windows must be 0 < min <= start <= max: " + minWindow + ", " + startWindow + ", " + maxWindow);
        }
        if (heatWait.isNegative() || target.isNegative() || target.isZero() || firstBackoff.isNegative() || longestBackoff.compareTo(firstBackoff) < 0) {
            throw new IllegalArgumentException("heatWait and backoffs must not be negative, target must be positive, the longest backoff no shorter than the first");
        }
    }
}
