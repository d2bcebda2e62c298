package io.heliotrope.storage.propagation;

import java.time.Clock;
import java.util.ArrayDeque;

import static java.util.Objects.requireNonNull;

/**
 * An image's cap on pushes: at most {@code bytesPerSecond} sent in any window of one
 * second, wherever the window starts, and at most {@code bytesPerDay} in a UTC calendar day
 * (the budget resets at midnight UTC, as egress is billed). 0 means no limit. Limits change
 * at run time and apply to what is admitted from then on.
 *
 * <p>Under a cap, grants carry at most a {@link #quantum()} (a hundredth of the cap) and
 * are paced: each comes no earlier than the one before plus its bytes at the rate the
 * window allows (one asked for less than a quantum's pace late keeps to the schedule, as
 * timers fire late), so pushes leave evenly instead of a second's worth at once followed by
 * a pause. A burst would queue on the link, and bytes that left in one window could then
 * arrive in the next with bytes that queued less: the receiver would count more than the
 * cap in some second. For the same reason the window holds one quantum less than the cap,
 * room for one grant's delivery jitter.
 *
 * <p>The window keeps a log of the grants of the last second, not fixed buckets or a token
 * bucket (one of capacity {@code cap} that refills continuously lets up to twice the cap
 * through some 1 s window): a grant at time {@code t} is made only if the grants in
 * {@code (t - 1 s, t]} plus it fit, so every window {@code [x, x + 1 s)}, whose grants all
 * lie within one second before its last, holds no more. Times are {@link Clock#millis()}.
 * Thread-safe.
 */
public final class RateLimiter {
    private static final long WINDOW_MILLIS = 1000;
    private static final long DAY_MILLIS = 86_400_000;
    /** A grant under a cap carries at most this share of it. */
    private static final long QUANTA_PER_SECOND = 100;

    private final Clock clock;
    private final ArrayDeque<Grant> window = new ArrayDeque<>();
    private long bytesPerSecond;
    private long bytesPerDay;
    private long inWindow;
    private long day;
    private long spentToday;
    /** When (ms, fractional) the pace lets the next grant go; meaningful under a cap. */
    private double pacedUntil;
    private Grant last;

    public RateLimiter(Clock clock, long bytesPerSecond, long bytesPerDay) {
        this.clock = requireNonNull(clock, "clock is null");
        limits(bytesPerSecond, bytesPerDay);
    }

    public synchronized void limits(long bytesPerSecond, long bytesPerDay) {
        if (bytesPerSecond < 0 || bytesPerDay < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
        this.bytesPerSecond = bytesPerSecond;
        this.bytesPerDay = bytesPerDay;
    }

    /** The most bytes one grant should carry under the cap (Long.MAX_VALUE without one). */
    public synchronized long quantum() {
        return bytesPerSecond == 0 ? Long.MAX_VALUE : bytesPerSecond / QUANTA_PER_SECOND;
    }

    /** What one window may hold under a cap: the cap less a quantum. */
    private long windowLimit() {
        return bytesPerSecond - bytesPerSecond / QUANTA_PER_SECOND;
    }

    /** Whether a grant of {@code bytes} can ever be made under the limits as they are. */
    public synchronized boolean fits(long bytes) {
        return (bytesPerSecond == 0 || bytes <= windowLimit()) && (bytesPerDay == 0 || bytes <= bytesPerDay);
    }

    /** How many bytes could be granted now: 0 while the pace holds grants back. */
    public synchronized long available() {
        long now = advance();
        if (bytesPerSecond != 0 && now < pacedUntil) {
            return 0;
        }
        long left = bytesPerSecond == 0 ? Long.MAX_VALUE : windowLimit() - inWindow;
        return Math.max(0, bytesPerDay == 0 ? left : Math.min(left, bytesPerDay - spentToday));
    }

    /** Grants {@code bytes} now if they fit, else returns null. */
    public synchronized Grant tryAcquire(long bytes) {
        if (bytes > available()) {
            return null;
        }
        long now = clock.millis();
        Grant grant = new Grant(now, day, bytes);
        window.addLast(grant);
        inWindow += bytes;
        spentToday += bytes;
        if (bytesPerSecond != 0) {
            // A grant asked for late (timers fire late) keeps to the schedule if it is less than a quantum's pace behind,
            // instead of losing the time; after a pause the schedule starts anew.
            double due = now - pacedUntil <= paceMillis(quantum()) ? pacedUntil : now;
            pacedUntil = due + paceMillis(bytes);
        }
        last = grant;
        return grant;
    }

    private double paceMillis(long bytes) {
        return bytes * (double) WINDOW_MILLIS / windowLimit();
    }

    /** Gives back bytes granted and not sent after all. */
    public synchronized void refund(Grant grant, long bytes) {
        long returned = Math.min(bytes, grant.bytes);
        grant.bytes -= returned;
        if (window.contains(grant)) {
            inWindow -= returned;
        }
        if (grant.day == day) {
            spentToday -= returned;
        }
        if (grant == last && bytesPerSecond != 0) {
            pacedUntil -= paceMillis(returned);
        }
    }

    /** Milliseconds until {@code bytes} could be granted (0: now), or -1 when no wait would do: they exceed a limit. */
    public synchronized long millisUntil(long bytes) {
        long now = advance();
        if (!fits(bytes)) {
            return -1;
        }
        if (bytesPerDay != 0 && spentToday + bytes > bytesPerDay) {
            return (day + 1) * DAY_MILLIS - now;
        }
        if (bytesPerSecond == 0) {
            return 0;
        }
        long wait = Math.max(0, (long) Math.ceil(pacedUntil - now));
        long excess = inWindow + bytes - windowLimit();
        for (Grant grant : window) {
            if (excess <= 0) {
                break;
            }
            excess -= grant.bytes;
            if (excess <= 0) {
                wait = Math.max(wait, grant.millis + WINDOW_MILLIS - now);
            }
        }
        return wait;
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
    public static final class Grant {
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
