package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.QmpCommands;
import io.heliotrope.scheduler.qmp.QmpEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.util.Objects.requireNonNull;

/**
 * The source of one migration, in three steps: it parks at {@code pre-switchover} (the guest
 * stopped, QEMU waiting for {@code migrate-continue}); it hands every disk over to the
 * destination's site at once; it continues. Armed, it takes the last two steps by itself as
 * soon as it parks, without a round trip to the driver. Held ({@link MigrationPlan#hold()}),
 * it stays parked until {@link #handOver()} and then until {@link #continueMigration()}, so
 * that several migrations switch over together. When any disk's handover fails or misses the
 * deadline, it cancels the migration either way (the disks stay held: the driver rolls back).
 */
final class SourceHandover {
    private static final Logger log = LoggerFactory.getLogger(SourceHandover.class);

    private final QemuVm vm;
    private final SiteDisks disks;
    private final MigrationPlan plan;
    private final Object lock = new Object();
    private Runnable unsubscribe;
    // Guarded by lock.
    private boolean hold;
    private boolean parked;
    private boolean ended;
    private CompletableFuture<HandoverState> handover;
    private CompletableFuture<Void> continued;

    private SourceHandover(QemuVm vm, SiteDisks disks, MigrationPlan plan) {
        this.vm = requireNonNull(vm, "vm is null");
        this.disks = requireNonNull(disks, "disks is null");
        this.plan = requireNonNull(plan, "plan is null");
        this.hold = plan.hold();
    }

    /** Arms (or holds) {@code vm}, before its {@code migrate} is sent; it stays so until the migration ends. */
    static SourceHandover arm(QemuVm vm, SiteDisks disks, MigrationPlan plan) {
        SourceHandover source = new SourceHandover(vm, disks, plan);
        vm.beginMigration(plan.hold() ? HandoverState.HELD : HandoverState.ARMED);
        source.unsubscribe = vm.addQmpListener(source::onEvent);
        return source;
    }

    /**
     * For a runner that re-attached to this source and armed it again from its
     * {@link MigrationPlan}: {@code status} is {@code query-migrate}'s, asked after arming, so
     * the events since then are not lost. Before {@code pre-switchover} nothing is to be done:
     * it parks as planned. Found parked already (its event sent while no runner listened) it
     * stays parked, held whatever its plan: an armed one's handover may have begun under the
     * previous runner, and whether its disks moved is for the driver to find out (HandOver,
     * or CancelMigration and a rollback). Found past the switchover, its handover was DONE.
     */
    void recover(String status) {
        synchronized (lock) {
            if (parked || ended || "setup".equals(status) || "active".equals(status)) {
                return;
            }
            if ("pre-switchover".equals(status)) {
                parked = true;
                hold = true;
                vm.beginMigration(HandoverState.HELD);
                return;
            }
        }
        end();
        vm.beginMigration("device".equals(status) || "completed".equals(status) ? HandoverState.DONE : HandoverState.NONE);
    }

    /** For a migration that did not start. */
    void disarm() {
        end();
        vm.beginMigration(HandoverState.NONE);
    }

    /** Until it completed, failed or was cancelled. */
    boolean inFlight() {
        synchronized (lock) {
            return !ended;
        }
    }

    /**
     * Held and parked: hands every disk over (once: a repeated call gets the first one's
     * outcome), completing with {@code DONE}, or {@code FAILED} once the migration was told
     * to cancel. {@code VM_BUSY} when not held, not parked at {@code pre-switchover}, or when
     * its QEMU exited (no disk moves then).
     */
    CompletableFuture<HandoverState> handOver() {
        synchronized (lock) {
            if (!hold) {
                throw busy("hands its disks over by itself (it was not started with hold)");
            }
            if (handover == null && vm.exited()) {
                throw busy("exited while parked");
            }
            if (handover == null && (!parked || ended)) {
                throw busy("is not parked at pre-switchover");
            }
        }
        return startHandover();
    }

    /**
     * Held, once its disks were handed over: {@code migrate-continue} (once: a repeated call
     * gets the first one's outcome). {@code VM_BUSY} otherwise.
     */
    CompletableFuture<Void> continueMigration() {
        synchronized (lock) {
            if (!hold) {
                throw busy("continues by itself (it was not started with hold)");
            }
            if (handover == null || !handover.isDone() || handover.join() != HandoverState.DONE) {
                throw busy("has not handed its disks over");
            }
        }
        return startContinue();
    }

    private CompletableFuture<HandoverState> startHandover() {
        synchronized (lock) {
            if (handover != null) {
                return handover;
            }
            handover = new CompletableFuture<>();
        }
        List<String> images = vm.launch().definition().disks();
        log.info("{}: pre-switchover, handing {} disk(s) over to {}", vm.name(), images.size(), plan.toSite());
        AllOrFirstFailure.of(images.stream().map(this::handOver).toList()).whenComplete((ignored, failure) -> {
            if (failure == null) {
                vm.handover(HandoverState.DONE, "");
                handover.complete(HandoverState.DONE);
                return;
            }
            String reason = HeliotropeException.unwrap(failure).getMessage();
            log.warn("{}: handover to {} failed, cancelling the migration: {}", vm.name(), plan.toSite(), reason);
            vm.handover(HandoverState.FAILED, reason);
            vm.call(QmpCommands.Action.MIGRATE_CANCEL).whenComplete((cancelled, refused) -> handover.complete(HandoverState.FAILED));
        });
        return handover;
    }

    private CompletableFuture<Void> startContinue() {
        synchronized (lock) {
            if (continued == null) {
                continued = vm.call(new QmpCommands.MigrateContinue("pre-switchover")).thenRun(() -> { });
                continued.whenComplete((done, refused) -> {
                    if (refused != null) {
                        log.warn("{}: migrate-continue failed: {}", vm.name(), refused.getMessage());
                        vm.error(HeliotropeException.rootMessage(refused));
                    }
                });
            }
            return continued;
        }
    }

    private void onEvent(QmpEvent event) {
        if (!(event instanceof QmpEvent.Migration migration)) {
            return;
        }
        switch (migration.status()) {
            case "pre-switchover" -> {
                boolean armed;
                synchronized (lock) {
                    parked = true;
                    armed = !hold;
                }
                if (armed) {
                    startHandover().thenAccept(state -> {
                        if (state == HandoverState.DONE) {
                            startContinue();
                        }
                    });
                }
            }
            case "completed" -> end();
            case "failed", "cancelled" -> {
                end();
                vm.endMigration();
            }
            default -> { }
        }
    }

    private void end() {
        synchronized (lock) {
            ended = true;
        }
        unsubscribe.run();
    }

    private CompletableFuture<Void> handOver(String image) {
        Duration deadline = plan.handoverDeadline();
        CompletableFuture<Void> handed;
        try {
            handed = disks.handover(image, plan.toSite(), deadline);
        } catch (RuntimeException e) {
            handed = CompletableFuture.failedFuture(e);
        }
        return handed.orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS).handle((ignored, failure) -> {
            if (failure == null) {
                return null;
            }
            Throwable cause = HeliotropeException.unwrap(failure);
            String why = cause instanceof TimeoutException ? "not done within " + deadline.toMillis() + " ms" : HeliotropeException.rootMessage(cause);
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, image + ": " + why, cause);
        });
    }

    private HeliotropeException busy(String why) {
        return new HeliotropeException(ErrorCode.VM_BUSY, "vm " + vm.name() + " " + why);
    }
}
