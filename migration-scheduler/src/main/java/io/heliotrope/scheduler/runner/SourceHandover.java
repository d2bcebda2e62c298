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
 * The armed source of one migration: on its {@code pre-switchover} event it hands every disk
 * over to the destination's site at once, then sends {@code migrate-continue} itself; when any
 * handover fails or misses the deadline, it cancels the migration (the disks stay held: the
 * driver rolls back). No round trip to the driver either way.
 */
final class SourceHandover {
    private static final Logger log = LoggerFactory.getLogger(SourceHandover.class);

    private final QemuVm vm;
    private final SiteDisks disks;
    private final String toSite;
    private final Duration deadline;
    private Runnable unsubscribe;

    private SourceHandover(QemuVm vm, SiteDisks disks, String toSite, Duration deadline) {
        this.vm = requireNonNull(vm, "vm is null");
        this.disks = requireNonNull(disks, "disks is null");
        this.toSite = requireNonNull(toSite, "toSite is null");
        this.deadline = requireNonNull(deadline, "deadline is null");
    }

    /** Arms {@code vm}, before its {@code migrate} is sent; it stays armed until the migration ends. */
    static SourceHandover arm(QemuVm vm, SiteDisks disks, String toSite, Duration deadline) {
        SourceHandover handover = new SourceHandover(vm, disks, toSite, deadline);
        vm.beginMigration(HandoverState.ARMED);
        handover.unsubscribe = vm.addQmpListener(handover::onEvent);
        return handover;
    }

    /** For a migration that did not start. */
    void disarm() {
        unsubscribe.run();
        vm.beginMigration(HandoverState.NONE);
    }

    private void onEvent(QmpEvent event) {
        if (!(event instanceof QmpEvent.Migration migration)) {
            return;
        }
        switch (migration.status()) {
            case "pre-switchover" -> handOver();
            case "completed" -> unsubscribe.run();
            case "failed", "cancelled" -> {
                unsubscribe.run();
                vm.endMigration();
            }
            default -> { }
        }
    }

    private void handOver() {
        List<String> images = vm.launch().definition().disks();
        log.info("{}: pre-switchover, handing {} disk(s) over to {}", vm.name(), images.size(), toSite);
        List<CompletableFuture<Void>> each = images.stream().map(this::handOver).toList();
        AllOrFirstFailure.of(each).whenComplete((ignored, failure) -> {
            if (failure == null) {
                vm.handover(HandoverState.DONE, "");
                vm.call(new QmpCommands.MigrateContinue("pre-switchover"))
                        .whenComplete((done, refused) -> {
                            if (refused != null) {
                                log.warn("{}: migrate-continue failed: {}", vm.name(), refused.getMessage());
                                vm.error(HeliotropeException.rootMessage(refused));
                            }
                        });
            } else {
                String reason = HeliotropeException.unwrap(failure).getMessage();
                log.warn("{}: handover to {} failed, cancelling the migration: {}", vm.name(), toSite, reason);
                vm.handover(HandoverState.FAILED, reason);
                vm.call(QmpCommands.Action.MIGRATE_CANCEL);
            }
        });
    }

    private CompletableFuture<Void> handOver(String image) {
        CompletableFuture<Void> handover;
        try {
            handover = disks.handover(image, toSite, deadline);
        } catch (RuntimeException e) {
            handover = CompletableFuture.failedFuture(e);
        }
        return handover.orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS).handle((ignored, failure) -> {
            if (failure == null) {
                return null;
            }
            Throwable cause = HeliotropeException.unwrap(failure);
            String why = cause instanceof TimeoutException ? "not done within " + deadline.toMillis() + " ms" : HeliotropeException.rootMessage(cause);
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, image + ": " + why, cause);
        });
    }
}
