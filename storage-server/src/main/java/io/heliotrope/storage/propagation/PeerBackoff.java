package io.heliotrope.storage.propagation;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Which sites pushes keep away from after a failed push, and for how long: the wait
 * doubles with each failure, from {@code first} up to {@code longest}, and a success ends
 * it. Failures of pushes that were already under way when the first of them was noticed
 * count once, so a burst of in-flight pushes failing together does not jump to the longest
 * wait. Shared by the images of a site: a peer that is down is down for all. Thread-safe.
 */
final class PeerBackoff {
    private final Clock clock;
    private final long firstMillis;
    private final long longestMillis;
    private final Map<String, State> sites = new HashMap<>();

    PeerBackoff(Clock clock, Duration first, Duration longest) {
        this.clock = requireNonNull(clock, "clock is null");
        this.firstMillis = first.toMillis();
        this.longestMillis = longest.toMillis();
    }

    /** Milliseconds until pushes to {@code site} may go again; 0 when they may now. */
    synchronized long millisLeft(String site) {
        State state = sites.get(site);
        return state == null ? 0 : Math.max(0, state.until - clock.millis());
    }

    /** Records a failed push to {@code site}; returns the wait it starts (or the one already running). */
    synchronized long failed(String site) {
        long now = clock.millis();
        State state = sites.computeIfAbsent(site, ignored -> new State());
        if (state.until <= now) {
            long wait = firstMillis << Math.min(state.failures, 20);
            state.failures++;
            state.until = now + Math.min(longestMillis, wait);
        }
        return state.until - now;
    }

    synchronized void succeeded(String site) {
        sites.remove(site);
    }

    private static final class State {
        private int failures;
        private long until;
    }
}
