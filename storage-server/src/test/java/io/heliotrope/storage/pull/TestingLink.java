package io.heliotrope.storage.pull;

import java.time.Duration;

/**
 * One direction of a WAN link, simulated: answers leave the holder half a round trip after
 * they are asked, wait in one FIFO queue for the link, go at its rate, and arrive half a round
 * trip later, as the WAN emulator does between sites. Times are nanoseconds.
 */
final class TestingLink {
    private final long rtt;
    private final double nanosPerByte;
    private long freeAt;

    TestingLink(Duration rtt, long bitsPerSecond) {
        this.rtt = rtt.toNanos();
        this.nanosPerByte = 8e9 / bitsPerSecond;
    }

    /** An answer of {@code bytes} asked at {@code now}: when it has arrived whole. */
    long answer(long now, long bytes) {
        long start = Math.max(now + rtt / 2, freeAt);
        freeAt = start + (long) (bytes * nanosPerByte);
        return freeAt + rtt / 2;
    }

    /** How long an answer asked at {@code now} waits behind those queued before it. */
    long queued(long now) {
        return Math.max(0, freeAt - (now + rtt / 2));
    }

    /** The bytes the link carries in {@code duration}. */
    long capacity(Duration duration) {
        return (long) (duration.toNanos() / nanosPerByte);
    }
}
