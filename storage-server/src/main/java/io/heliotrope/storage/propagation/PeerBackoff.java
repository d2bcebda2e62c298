package io.heliotrope.storage.propagation;

import io.heliotrope.storage.peer.Backoff;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.random.RandomGenerator;

import static java.util.Objects.requireNonNull;

/**
 * Which sites pushes keep away from, and when they try again: a breaker per site. A push that
 * fails, or that has no answer in time ({@link #missed}), starts a {@link Backoff}. Once its wait
 * has passed, one push goes as a trial, unless a push to the site is still under way: that
 * one's answer tells first whether the site is back, so a site cut off gets no more data than
 * what was under way when it went silent. An answer from the site ends the wait and lets every
 * push go again, so pushes resume a round trip after a link heals, whatever the wait had grown
 * to. Shared by the images of a site: a peer that is down is down for all. Thread-safe.
 */
final class PeerBackoff {
    private final Clock clock;
    private final Duration first;
    private final Duration longest;
    private final RandomGenerator random;
    private final Map<String, Site> sites = new HashMap<>();

    PeerBackoff(Clock clock, Duration first, Duration longest, RandomGenerator random) {
        this.clock = requireNonNull(clock, "clock is null");
        this.first = requireNonNull(first, "first is null");
        this.longest = requireNonNull(longest, "longest is null");
        this.random = requireNonNull(random, "random is null");
    }

    /**
     * Milliseconds until a push to {@code site} may go: 0 now, {@code Long.MAX_VALUE} while
     * the site is in doubt and a push to it is still under way.
     */
    synchronized long millisLeft(String site) {
        Site state = sites.get(site);
        if (state == null || !state.backoff.failing()) {
            return 0;
        }
        long left = state.backoff.millisLeft(clock.millis());
        return left > 0 ? left : state.underWay == 0 ? 0 : Long.MAX_VALUE;
    }

    /** A push to {@code site} goes out. */
    synchronized void started(String site) {
        site(site).underWay++;
    }

    /** {@code site} answered a push: it is reachable, every push may go. */
    synchronized void answered(String site) {
        Site state = site(site);
        state.underWay--;
        state.backoff.succeeded();
    }

    /** A push to {@code site} failed; returns the wait it starts (or the one already running). */
    synchronized long failed(String site) {
        Site state = site(site);
        state.underWay--;
        return state.backoff.failed(clock.millis());
    }

    /**
     * A failure that ends no push under way: a push late for its answer (it goes on), or one that
     * failed before it went. Returns the wait it starts (or the one already running).
     */
    synchronized long missed(String site) {
        return site(site).backoff.failed(clock.millis());
    }

    private Site site(String site) {
        return sites.computeIfAbsent(site, name -> new Site(new Backoff(first, longest, random)));
    }

    private static final class Site {
        private final Backoff backoff;
        private int underWay;

        Site(Backoff backoff) {
            this.backoff = backoff;
        }
    }
}
