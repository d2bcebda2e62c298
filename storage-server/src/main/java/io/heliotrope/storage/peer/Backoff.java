package io.heliotrope.storage.peer;

import java.time.Duration;
import java.util.random.RandomGenerator;

import static java.util.Objects.requireNonNull;

/**
 * How long calls to a peer that failed wait before they are tried again: a bounded exponential
 * wait with jitter. The n-th wait in a row is drawn uniformly from {@code [c/2, c]}, where
 * {@code c = min(longest, first * 2^(n-1))}: never less than half (a dead peer is not
 * hammered), never the same for the sites and images that failed together (they do not come
 * back in lockstep). Failures while a wait runs count once: the calls under way when a path
 * went dead fail together, and a window of 32 of them must not jump straight to the longest
 * wait. A success ends it, and the next failure starts from {@code first} again.
 * Thread-safe.
 */
public final class Backoff {
    private final long firstMillis;
    private final long longestMillis;
    private final RandomGenerator random;
    private int failures;
    private long untilMillis;

    public Backoff(Duration first, Duration longest, RandomGenerator random) {
        this.firstMillis = first.toMillis();
        this.longestMillis = longest.toMillis();
        this.random = requireNonNull(random, "random is null");
        if (firstMillis < 0 || longestMillis < firstMillis) {
            throw new IllegalArgumentException("backoffs must not be negative, nor the longest shorter than the first: " + first + ", " + longest);
        }
    }

    /** Records a failure at {@code nowMillis}; returns the wait it starts, or what is left of the one running. */
    public synchronized long failed(long nowMillis) {
        if (nowMillis >= untilMillis) {
            long ceiling = Math.min(longestMillis, firstMillis << Math.min(failures, 20));
            failures++;
            untilMillis = nowMillis + ceiling / 2 + random.nextLong(ceiling - ceiling / 2 + 1);
        }
        return untilMillis - nowMillis;
    }

    public synchronized void succeeded() {
        failures = 0;
        untilMillis = 0;
    }

    /** Whether the last call ended in a failure: the peer is to be tried again, not trusted. */
    public synchronized boolean failing() {
        return failures > 0;
    }

    /** Milliseconds until the peer may be tried again; 0 when it may now. */
    public synchronized long millisLeft(long nowMillis) {
        return Math.max(0, untilMillis - nowMillis);
    }
}
