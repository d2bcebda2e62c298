package io.heliotrope.scheduler.migration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The barriers of migrations switched over together. Each member migrates until its source
 * parks at {@code pre-switchover} (the guest paused), then waits here for the others: when
 * all have parked within the barrier of the first, each hands its disks over and
 * waits again; when all have, each continues. Until then, the first member to fail, a
 * member that misses the barrier, or a cancel fails the ensemble, and every member rolls
 * back; after it, a failure is each member's own.
 */
final class Ensemble {
    private final String id;
    private final List<String> members;
    private final Duration barrier;
    private int parked;
    private int handedOver;
    private long firstParkedNanos;
    private String failure;

    Ensemble(String id, List<String> members, Duration barrier) {
        this.id = requireNonNull(id, "id is null");
        this.members = List.copyOf(members);
        this.barrier = requireNonNull(barrier, "barrier is null");
    }

    String id() {
        return id;
    }

    List<String> members() {
        return members;
    }

    /** Why the ensemble failed, or null while it has not. */
    synchronized String failure() {
        return failure;
    }

    /** Fails the ensemble unless every member has handed over already; the first reason stays. */
    synchronized void fail(String reason) {
        if (failure == null && handedOver < members.size()) {
            failure = reason;
            notifyAll();
        }
    }

    /**
     * Called by a member parked at {@code pre-switchover}: waits for every member to park,
     * for at most the barrier after the first did. Null when all did, else why not (the
     * ensemble has failed then).
     */
    synchronized String awaitParked(String member) throws InterruptedException {
        if (parked++ == 0) {
            firstParkedNanos = System.nanoTime();
        }
        notifyAll();
        long deadline = firstParkedNanos + barrier.toNanos();
        while (failure == null && parked < members.size()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail(parked + " of " + members.size() + " VMs reached pre-switchover within " + barrier.toMillis() + " ms of the first ("
                        + member + " waited)");
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return failure;
    }

    /**
     * Called by a member whose disks were handed over: waits for every member's, for at
     * most {@code patience}. Null when all were (the ensemble can no longer fail), else why
     * not: a failure before the last hand-over (a cancel among them) holds for every member.
     */
    synchronized String awaitHandedOver(String member, Duration patience) throws InterruptedException {
        handedOver++;
        notifyAll();
        long deadline = System.nanoTime() + patience.toNanos();
        while (failure == null && handedOver < members.size()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail(handedOver + " of " + members.size() + " VMs handed their disks over within " + patience.toMillis() + " ms ("
                        + member + " waited)");
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return failure;
    }
}
