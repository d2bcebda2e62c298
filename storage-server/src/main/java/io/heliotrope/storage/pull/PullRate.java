package io.heliotrope.storage.pull;

/** Bytes per second over the last 5 s, in per-second buckets. Thread-safe. */
final class PullRate {
    private static final int SECONDS = 5;

    private final long[] seconds = new long[SECONDS];
    private final long[] bytes = new long[SECONDS];

    synchronized void add(long nowMillis, long added) {
        long second = Math.floorDiv(nowMillis, 1000);
        int slot = Math.floorMod(second, SECONDS);
        if (seconds[slot] != second) {
            seconds[slot] = second;
            bytes[slot] = 0;
        }
        bytes[slot] += added;
    }

    synchronized long perSecond(long nowMillis) {
        long second = Math.floorDiv(nowMillis, 1000);
        long sum = 0;
        for (int slot = 0; slot < SECONDS; slot++) {
            if (seconds[slot] > second - SECONDS) {
                sum += bytes[slot];
            }
        }
        return sum / SECONDS;
    }
}
