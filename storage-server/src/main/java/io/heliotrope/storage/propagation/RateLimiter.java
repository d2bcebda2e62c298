package io.heliotrope.storage.propagation;

import java.time.Clock;
import java.util.ArrayDeque;

import static java.util.Objects.requireNonNull;

/**
 * An image's cap on pushes: at most {@code bytesPerSecond} admitted in any window of one
 * second, wherever the window starts, and at most {@code bytesPerDay} in a UTC calendar day
 * (the budget resets at midnight UTC, as egress is billed). 0 means no limit. Limits change
 * at run time and apply to what is admitted from then on.
 *
 * <p>The cap keeps a log of the grants of the last second, not fixed buckets or a token
 * bucket (one of capacity {@code cap} that refills continuously lets up to twice the cap
 * through some 1 s window): a grant at time {@code t} is made only if the grants in
 * {@code (t - 1 s, t]} plus it fit the cap, so every window {@code [x, x + 1 s)}, whose
 * grants all lie within one second before its last, holds no more than the cap. Times are
 * {@link Clock#millis()}. Thread-safe.
 */
final class RateLimiter {
    private static final long WINDOW_MILLIS = 1000;
    private static final long DAY_MILLIS = 86_400_000;

    private final Clock clock;
    private final ArrayDeque<Grant> window = new ArrayDeque<>();
    private long bytesPerSecond;
    private long bytesPerDay;
    private long inWindow;
    private long day;
    private long spentToday;

    RateLimiter(Clock clock, long bytesPerSecond, long bytesPerDay) {
        this.clock = requireNonNull(clock, "clock is null");
        limits(bytesPerSecond, bytesPerDay);
    }

    synchronized void limits(long bytesPerSecond, long bytesPerDay) {
        if (bytesPerSecond < 0 || bytesPerDay < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
        this.bytesPerSecond = bytesPerSecond;
        this.bytesPerDay = bytesPerDay;
    }

    /** How many bytes could be granted now. */
    synchronized long available() {
        long now = advance();
        long left = bytesPerSecond == 0 ? Long.MAX_VALUE : bytesPerSecond - inWindow;
        return Math.max(0, bytesPerDay == 0 ? left : Math.min(left, bytesPerDay - spentToday));
    }

    /** Grants {@code bytes} now if they fit, else returns null. */
    synchronized Grant tryAcquire(long bytes) {
        if (bytes > available()) {
            return null;
        }
        Grant grant = new Grant(clock.millis(), day, bytes);
        window.addLast(grant);
        inWindow += bytes;
        spentToday += bytes;
        return grant;
    }

    /** Gives back bytes granted and not sent after all. */
    synchronized void refund(Grant grant, long bytes) {
        long returned = Math.min(bytes, grant.bytes);
        grant.bytes -= returned;
        if (window.contains(grant)) {
            inWindow -= returned;
        }
        if (grant.day == day) {
            spentToday -= returned;
        }
    }

    /** Milliseconds until {@code bytes} could be granted (0: now), or -1 when no wait would do: they exceed a limit. */
    synchronized long millisUntil(long bytes) {
        long now = advance();
        if ((bytesPerSecond != 0 && bytes > bytesPerSecond) || (bytesPerDay != 0 && bytes > bytesPerDay)) {
            return -1;
        }
        if (bytesPerDay != 0 && spentToday + bytes > bytesPerDay) {
            return (day + 1) * DAY_MILLIS - now;
        }
        long excess = bytesPerSecond == 0 ? 0 : inWindow + bytes - bytesPerSecond;
        for (Grant grant : window) {
            if (excess <= 0) {
                break;
            }
            excess -= grant.bytes;
            if (excess <= 0) {
                return grant.millis + WINDOW_MILLIS - now;
            }
        }
        return 0;
    }

    /** Drops grants older than the window and starts a new day's budget at midnight; returns the time. */
    private long advance() {
        long now = clock.millis();
        while (!window.isEmpty() && window.peekFirst().millis <= now - WINDOW_MILLIS) {
            inWindow -= window.removeFirst().bytes;
        }
        long today = Math.floorDiv(now, DAY_MILLIS);
        if (today != day) {
            day = today;
            spentToday = 0;
        }
        return now;
    }

    /** Bytes granted at a time, on a day; fewer after a refund. */
    static final class Grant {
        private final long millis;
        private final long day;
        private long bytes;

        private Grant(long millis, long day, long bytes) {
            this.millis = millis;
            this.day = day;
            this.bytes = bytes;
        }
    }
}
