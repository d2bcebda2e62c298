package io.heliotrope.storage.handoff;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.runner.SiteDisks;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.session.Handed;
import io.heliotrope.storage.session.HandoffSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The site side of live migrations' storage handoffs (DESIGN.md section 4), transport-free:
 * standby and activation at the destination, boost, handover, hold, reclaim and end of the
 * hold at the source. Calls that may wait on the controller run on {@code calls}; each
 * completes with its outcome. It is also what the site's VM runner asks of the storage
 * ({@link SiteDisks}).
 */
public final class SiteHandoffs implements SiteDisks {
    /** A standby not renewed for this long lapses. */
    public static final Duration STANDBY_LAPSE = Duration.ofSeconds(30);
    static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger(SiteHandoffs.class);

    /** What GetHandoff tells of an image here. */
    public record Status(String image, HandoffSession.Role role, String peer, long epoch, long backlogBlocks, long pushedBytes, int connections) {}

    /** Where the lease went: {@code epoch} at the destination, by the flush of {@code metaSeq} (0: its reply was lost), {@code backlogBlocks} left unpushed. */
    public record Handover(long epoch, long metaSeq, long backlogBlocks) {}

    /** How this site reaches another site's handoff service. */
    public interface Peers {
        CompletableFuture<Long> boost(String site, String image, List<BlockVersion> held);

        CompletableFuture<Void> activate(String site, String image, long epoch, long metaSeq);
    }

    private final String site;
    private final ControllerSessions sessions;
    private final ImageExports exports;
    private final Boosts boosts;
    private final Peers peers;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService calls;
    private final Supplier<InetSocketAddress> nbdAddress;
    private final Duration lapse;
    private final boolean boost;
    private final Map<String, ScheduledFuture<?>> lapses = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> actives = new ConcurrentHashMap<>();
    private final List<Consumer<String>> lapseListeners = new CopyOnWriteArrayList<>();
    private final HandoffAwaits awaits;

    /**
     * @param scheduler times the standbys' lapses
     * @param calls runs the calls, which may wait on the controller and on peers
     * @param boost whether a standby here has the source boost the blocks this site lacks
     */
    public SiteHandoffs(String site, ControllerSessions sessions, ImageExports exports, Boosts boosts, Peers peers, ScheduledExecutorService scheduler,
            ExecutorService calls, Supplier<InetSocketAddress> nbdAddress, Duration lapse, boolean boost) {
        this.site = requireNonNull(site, "site is null");
        this.sessions = requireNonNull(sessions, "sessions is null");
        this.exports = requireNonNull(exports, "exports is null");
        this.boosts = requireNonNull(boosts, "boosts is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.calls = requireNonNull(calls, "calls is null");
        this.nbdAddress = requireNonNull(nbdAddress, "nbdAddress is null");
        this.lapse = requireNonNull(lapse, "lapse is null");
        this.boost = boost;
        this.awaits = new HandoffAwaits(site, sessions, calls, scheduler, (image, synced) -> activated(image, () -> sessions.activate(image, synced)),
                HandoffAwaits.WAIT);
    }

    /** Calls {@code listener} with the image's name whenever a standby here lapses (its runner stops the destination still waiting). */
    public void onStandbyLapsed(Consumer<String> listener) {
        lapseListeners.add(requireNonNull(listener, "listener is null"));
    }

    /**
     * At the destination: serves {@code image} in standby for the lease at {@code from}, or
     * renews a standby; the first call has {@code from} boost the blocks this site lacks (unless
     * this site runs without boosts). While
     * in standby, the site awaits the lease at the controller and activates as soon as the
     * lease is here ({@link HandoffAwaits}), whether or not the source's Activate came.
     */
    public CompletableFuture<Status> standby(String image, String from) {
        return async(image, () -> {
            boolean first = !sessions.inStandby(image);
            List<BlockVersion> held = sessions.standby(image, from);
            if (first) {
                // An earlier handoff's activation must not resume this one's destination.
                actives.remove(image);
            }
            ScheduledFuture<?> previous = lapses.put(image, scheduler.schedule(() -> lapsed(image), lapse.toMillis(), TimeUnit.MILLISECONDS));
            if (previous != null) {
                previous.cancel(false);
            }
            awaits.start(image);
            if (first && boost) {
                peers.boost(from, image, held).whenComplete((queued, failure) -> {
                    if (failure != null) {
                        log.warn("{}: site {} did not start the boost: {}", image, from, HeliotropeException.rootMessage(failure));
                    } else {
                        log.info("{}: site {} boosts {} blocks this site lacks", image, from, queued);
                    }
                });
            }
            return status(image);
        });
    }

    private void lapsed(String image) {
        lapses.remove(image);
        calls.execute(() -> {
            awaits.stop(image);
            sessions.end(image, "its standby lapsed: not renewed for " + lapse.toSeconds() + " s");
            failActive(image, "its standby lapsed");
            log.warn("{}: standby for a handoff lapsed", image);
            lapseListeners.forEach(listener -> listener.accept(image));
        });
    }

    /** At the source, from the destination {@code to}: the versions it holds; returns how many blocks are queued for it. */
    public CompletableFuture<Long> boost(String image, String to, long[] blocks, long[] versions) {
        return async(image, () -> boosts.boost(sessions.session(image), to, blocks, versions));
    }

    /**
     * At the source: holds the image's I/O, hands the lease to {@code to}, and tells {@code to}
     * to activate. Fails with {@code PEER_UNAVAILABLE} when the outcome is still unknown at the
     * deadline; the I/O stays held.
     */
    public CompletableFuture<Handover> handOver(String image, String to, Duration deadline) {
        long deadlineNanos = System.nanoTime() + (deadline.isZero() ? DEFAULT_DEADLINE : deadline).toNanos();
        return async(image, () -> {
            long left = boosts.stop(image);
            Handed handed = sessions.handOver(image, to, deadlineNanos);
            peers.activate(to, image, handed.epoch(), handed.metaSeq()).whenComplete((ignored, failure) -> {
                if (failure != null) {
                    log.warn("{}: site {} did not activate: {}", image, to, HeliotropeException.rootMessage(failure));
                }
            });
            return new Handover(handed.epoch(), handed.metaSeq(), left);
        });
    }

    /** At the destination: adopts the lease handed here and serves the held writes; a no-op when the controller's word activated it already. */
    public CompletableFuture<Status> activate(String image) {
        return async(image, () -> {
            activated(image, () -> sessions.activate(image));
            return status(image);
        });
    }

    /**
     * Ends the standby's lapse and activates, then ends its await: the runner waiting on
     * {@link #active} may resume its guest. The await goes on while the source's Activate reads
     * the lease: its answer may come first.
     */
    private void activated(String image, Runnable activation) {
        ScheduledFuture<?> timer = lapses.remove(image);
        if (timer != null) {
            timer.cancel(false);
        }
        activation.run();
        awaits.stop(image);
        active(image).complete(null);
    }

    /** At the source after a rollback: adopts the lease back and serves the held connections. */
    public CompletableFuture<Status> reclaim(String image) {
        return async(image, () -> {
            sessions.reclaim(image);
            return status(image);
        });
    }

    /** At the source after the commit: the held connections end, without a flush or a release. */
    public CompletableFuture<Status> endHold(String image) {
        return async(image, () -> {
            sessions.end(image, "handed over to another site");
            return status(image);
        });
    }

    /** At the destination after a rollback: leaves standby or the adopted session without a flush. */
    public CompletableFuture<Status> abandon(String image) {
        return async(image, () -> {
            ScheduledFuture<?> timer = lapses.remove(image);
            if (timer != null) {
                timer.cancel(false);
            }
            awaits.stop(image);
            sessions.end(image, "its handoff was rolled back");
            failActive(image, "its handoff was rolled back");
            return status(image);
        });
    }

    public CompletableFuture<Status> handoff(String image) {
        return async(image, () -> status(image));
    }

    private Status status(String image) {
        int connections = exports.inUse().stream().filter(use -> use.name().equals(image)).mapToInt(ImageExports.InUse::connections).sum();
        HandoffSession session;
        try {
            session = sessions.session(image);
        } catch (HeliotropeException e) {
            HandoffSession.Role role = sessions.inStandby(image) ? HandoffSession.Role.STANDBY : null;
            return new Status(image, role, sessions.standbyFrom(image).orElse(""), 0, 0, 0, connections);
        }
        var boost = boosts.of(image);
        return new Status(image, session.role(), boost.map(Boosts.Boost::to).orElse(session.peer()), session.epoch(),
                boost.map(running -> running.pushes().backlogBlocks()).orElse(0L), boost.map(running -> running.pushes().sentBytes()).orElse(0L),
                connections);
    }

    @Override
    public InetSocketAddress nbdAddress() {
        return nbdAddress.get();
    }

    @Override
    public CompletableFuture<Void> handover(String image, String toSite, Duration deadline) {
        return handOver(image, toSite, deadline).thenApply(ignored -> null);
    }

    @Override
    public CompletableFuture<Void> active(String image) {
        return actives.computeIfAbsent(image, name -> new CompletableFuture<>());
    }

    private void failActive(String image, String reason) {
        CompletableFuture<Void> waiting = actives.remove(image);
        if (waiting != null) {
            waiting.completeExceptionally(new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + image + "' will not be active at " + site + ": " + reason));
        }
    }

    private <T> CompletableFuture<T> async(String image, Supplier<T> call) {
        return BoundedExecutors.supplyAsync(call, calls, "the handoff of image '" + image + "'");
    }
}
