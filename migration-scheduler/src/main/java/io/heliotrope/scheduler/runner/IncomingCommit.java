package io.heliotrope.scheduler.runner;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.QmpCommands;
import io.heliotrope.scheduler.qmp.QmpEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static java.util.Objects.requireNonNull;

/**
 * A destination's commit point. On its {@code completed} event it waits until this site has
 * activated every disk, then resumes the guest itself ({@code cont}); AbortIncoming before
 * that kills it instead. Which of the two wins is decided under one lock: exactly one does.
 * A disk not active within the deadline leaves the guest paused, with the reason recorded.
 */
final class IncomingCommit {
    private static final Logger log = LoggerFactory.getLogger(IncomingCommit.class);

    private enum State { WAITING, RESUMING, GAVE_UP, ABORTED }

    private final QemuVm vm;
    private final SiteDisks disks;
    private final Duration deadline;
    private final Duration killPatience;
    private final CompletableFuture<Long> resumed = new CompletableFuture<>();
    private final Object lock = new Object();
    private State state = State.WAITING;

    IncomingCommit(QemuVm vm, SiteDisks disks, Duration deadline, Duration killPatience) {
        this.vm = requireNonNull(vm, "vm is null");
        this.disks = requireNonNull(disks, "disks is null");
        this.deadline = requireNonNull(deadline, "deadline is null");
        this.killPatience = requireNonNull(killPatience, "killPatience is null");
    }

    /** Listens for the {@code completed} event from now on. */
    void arm() {
        vm.addQmpListener(event -> {
            if (event instanceof QmpEvent.Migration migration && migration.status().equals("completed")) {
                activate();
            }
        });
    }

    /** Marks a destination found running (resumed before this runner re-attached). */
    void alreadyResumed() {
        synchronized (lock) {
            state = State.RESUMING;
        }
        resumed.complete(vm.migrationView().times().resume());
    }

    boolean resumed() {
        synchronized (lock) {
            return state == State.RESUMING && resumed.isDone() && !resumed.isCompletedExceptionally();
        }
    }

    /** Waits for every disk to be active here, then resumes the guest unless aborted first. */
    void activate() {
        List<String> images = vm.launch().definition().disks();
        List<CompletableFuture<Void>> active = images.stream().map(disks::active).toList();
        AllOrFirstFailure.of(active).orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS).whenComplete((ignored, failure) -> {
            if (failure == null) {
                resume();
                return;
            }
            List<String> waiting = IntStream.range(0, images.size()).filter(i -> !active.get(i).isDone()).mapToObj(images::get).toList();
            String reason = "not resumed: " + (waiting.isEmpty()
                    ? HeliotropeException.rootMessage(failure)
                    : "disk(s) " + String.join(", ", waiting) + " not active here within " + deadline.toMillis() + " ms");
            synchronized (lock) {
                if (state != State.WAITING) {
                    return;
                }
                state = State.GAVE_UP;
            }
            log.warn("{}: {}", vm.name(), reason);
            vm.error(reason);
            vm.publish(VmEvent.NOT_RESUMED, reason);
        });
    }

    /** AbortIncoming: kills the QEMU unless the guest was resumed already; says which. */
    CompletableFuture<AbortResult> abort() {
        synchronized (lock) {
            if (state != State.RESUMING) {
                state = State.ABORTED;
                log.info("{}: incoming migration aborted before the resume", vm.name());
                return vm.kill(killPatience).thenApply(gone -> new AbortResult(false, 0));
            }
        }
        return resumed.handle((micros, failure) -> failure == null ? new AbortResult(true, micros) : new AbortResult(false, 0));
    }

    private void resume() {
        synchronized (lock) {
            if (state != State.WAITING) {
                return;
            }
            state = State.RESUMING;
        }
        // QEMU sends RESUME before cont's reply, on the same connection: its time is recorded by then.
        vm.call(QmpCommands.Action.CONT).whenComplete((ignored, failure) -> {
            if (failure != null) {
                log.warn("{}: cont failed: {}", vm.name(), failure.getMessage());
                vm.error("not resumed: " + HeliotropeException.rootMessage(failure));
                resumed.completeExceptionally(failure);
                return;
            }
            long micros = vm.migrationView().times().resume();
            log.info("{}: disks active, guest resumed", vm.name());
            vm.publish(VmEvent.RESUMED_BY_RUNNER, "");
            resumed.complete(micros);
        });
    }
}
