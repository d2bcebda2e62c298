package io.heliotrope.wan;

import java.util.concurrent.atomic.LongAdder;

/**
 * One direction of a link, shared by all its connections (which may run on different event
 * loops): the serializer that makes them take turns on the link's capacity, and the count of
 * bytes delivered.
 */
final class LinkDirection {
    private final LongAdder deliveredBytes = new LongAdder();
    private long freeAtNanos = System.nanoTime();

    /**
     * Puts a chunk on the link at {@code nowNanos} or, if the link is busy, when it frees up,
     * and returns when its last bit has left.
     */
    synchronized long transmit(long nowNanos, long transmissionNanos) {
        freeAtNanos = Math.max(nowNanos, freeAtNanos) + transmissionNanos;
        return freeAtNanos;
    }

    void delivered(int bytes) {
        deliveredBytes.add(bytes);
    }

    long deliveredBytes() {
        return deliveredBytes.sum();
    }
}
