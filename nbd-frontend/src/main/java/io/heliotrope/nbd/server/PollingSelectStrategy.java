package io.heliotrope.nbd.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

import java.util.function.LongSupplier;

/**
 * How an event loop waits for the next request: it polls its sockets for up to
 * {@code pollNanos} before it sleeps, while requests have been coming closer together
 * than that on average, and sleeps at once otherwise. A sleeping loop costs each request
 * a wake-up from another CPU, tens of microseconds on a VM, which a client with one
 * request in flight waits for every time (4 KiB reads at queue depth 1 from the memory
 * store: 88–232 µs sleeping at once, 41–49 µs polling for up to 500 µs). A loop that
 * polls keeps its CPU busy, and gives it up to any other runnable thread on each turn;
 * an idle server, or one whose requests come further apart, never polls.
 */
final class PollingSelectStrategy implements SelectStrategy {
    private static final int SMOOTHING = 8;

    private final long pollNanos;
    private final LongSupplier clock;
    /** Average time between the loop running out of work and its next work, each capped at {@code 4 * pollNanos}. */
    private long meanIdleNanos;
    /** When the loop ran out of work, or 0 while it has some. */
    private long idleSince;
    private boolean slept;

    PollingSelectStrategy(long pollNanos, LongSupplier clock) {
        if (pollNanos < 0) {
            throw new IllegalArgumentException("pollNanos must be 0 or more: " + pollNanos);
        }
        this.pollNanos = pollNanos;
        this.clock = clock;
        this.meanIdleNanos = idleCap();
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        long now = clock.getAsLong();
        if (slept) {
            // Its idle time ended with what woke it, which it has handled since.
            slept = false;
            idleEnded(now);
            idleSince = 0;
        }
        if (ready > 0 || hasTasks) {
            if (idleSince != 0) {
                idleEnded(now);
                idleSince = 0;
            }
            return ready;
        }
        if (idleSince == 0) {
            idleSince = now;
        }
        if (meanIdleNanos < pollNanos && now - idleSince < pollNanos) {
            Thread.yield();
            return CONTINUE;
        }
        slept = true;
        return SELECT;
    }

    private void idleEnded(long now) {
        long idle = Math.min(now - idleSince, idleCap());
        meanIdleNanos += (idle - meanIdleNanos) / SMOOTHING;
    }

    private long idleCap() {
        return 4 * pollNanos;
    }
}
