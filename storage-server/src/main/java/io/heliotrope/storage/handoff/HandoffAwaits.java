package io.heliotrope.storage.handoff;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.session.Controller;
import io.heliotrope.storage.session.ControllerSessions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static java.util.Objects.requireNonNull;

/**
 * The destination's wait for the controller's word (DESIGN.md section 4): while an image is
 * in standby here, one call at a time awaits at the controller the move of its lease here
 * ({@link ControllerSessions#awaitHandoff}), asked again while the standby lasts. When the
 * lease is here, the image is activated with what the call answered: the controller pushes
 * the move, so the activation does not wait for the source's Activate (its handover reply
 * plus one way to here) and a read of the lease after it (one more round trip). Measured
 * from virginia to taiwan, 75 ms apart, the controller at virginia, from the source's "lease
 * handed over" to the destination's "write lease adopted": 131 to 164 ms before, 44 to 53 ms
 * with the await (112 ms the first time). The source's Activate stays: whichever comes second
 * finds the image active. Stopped by the standby's end and by activation.
 */
final class HandoffAwaits {
    /** How long one call waits at the controller before it is asked again. */
    static final Duration WAIT = Duration.ofSeconds(10);
    /** After a failed call, the next waits this long: a controller that cannot be reached is not asked in a loop. */
    private static final Duration RETRY = Duration.ofSeconds(1);
    private static final Logger log = LoggerFactory.getLogger(HandoffAwaits.class);

    private final String site;
    private final ControllerSessions sessions;
    private final Executor calls;
    private final ScheduledExecutorService scheduler;
    private final BiConsumer<String, Controller.Synced> activate;
    private final Duration wait;
    private final Map<String, Await> awaits = new ConcurrentHashMap<>();

    /**
     * @param calls runs the activations
     * @param scheduler times the retries after a failed call
     * @param activate activates an image in standby here with the lease and metadata the controller answered
     * @param wait how long one call waits at the controller ({@link #WAIT})
     */
    HandoffAwaits(String site, ControllerSessions sessions, Executor calls, ScheduledExecutorService scheduler,
            BiConsumer<String, Controller.Synced> activate, Duration wait) {
        this.site = requireNonNull(site, "site is null");
        this.sessions = requireNonNull(sessions, "sessions is null");
        this.calls = requireNonNull(calls, "calls is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.activate = requireNonNull(activate, "activate is null");
        this.wait = requireNonNull(wait, "wait is null");
    }

    /** Awaits the lease of {@code image}, in standby here, unless that is under way already. */
    void start(String image) {
        Await await = new Await(image);
        if (awaits.putIfAbsent(image, await) == null) {
            await.next();
        }
    }

    /** Ends the await of {@code image}: its standby ended, or it was activated. */
    void stop(String image) {
        Await await = awaits.remove(image);
        if (await != null) {
            await.stop();
        }
    }

    /** Whether {@code image} is awaited now. */
    boolean awaiting(String image) {
        return awaits.containsKey(image);
    }

    /** The calls for one image, one at a time. */
    private final class Await {
        private final String image;
        private volatile boolean stopped;
        private volatile CompletableFuture<Controller.Synced> call;

        Await(String image) {
            this.image = image;
        }

        void next() {
            if (stopped) {
                return;
            }
            CompletableFuture<Controller.Synced> started;
            try {
                started = sessions.awaitHandoff(image, wait);
            } catch (RuntimeException e) {
                started = CompletableFuture.failedFuture(e);
            }
            call = started;
            if (stopped) {
                started.cancel(false);
                return;
            }
            started.whenComplete((synced, failure) -> execute(() -> answered(synced, failure)));
        }

        void stop() {
            stopped = true;
            CompletableFuture<Controller.Synced> running = call;
            if (running != null) {
                running.cancel(false);
            }
        }

        private void answered(Controller.Synced synced, Throwable failure) {
            if (stopped) {
                return;
            }
            if (failure == null && synced.lease().holder().equals(site)) {
                log.info("{}: the controller says the lease is here (epoch {})", image, synced.lease().epoch());
                end();
                try {
                    activate.accept(image, synced);
                } catch (HeliotropeException e) {
                    log.info("{}: not activated on the controller's word: {}", image, e.getMessage());
                }
            } else if (!sessions.inStandby(image)) {
                end();
            } else if (failure != null) {
                log.warn("{}: awaiting the lease at the controller failed, again in {} s: {}", image, RETRY.toSeconds(),
                        HeliotropeException.rootMessage(failure));
                scheduler.schedule(() -> execute(this::next), RETRY.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                next();
            }
        }

        private void end() {
            awaits.remove(image, this);
        }

        private void execute(Runnable task) {
            try {
                calls.execute(task);
            } catch (RejectedExecutionException e) {
                log.debug("{}: no await of the lease: the handoff calls are full or closed", image);
                end();
            }
        }
    }
}
