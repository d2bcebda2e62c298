package io.heliotrope.storage.view;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Which I/O of an open image is served now, shared by its connections (DESIGN.md section 4,
 * the handoff). Open: everything. In standby (the destination of a handoff before it
 * holds the lease): reads and FLUSHes, while writes wait. Held (the source once it hands
 * over): only FLUSHes, so a client that quits is answered; reads and writes wait, neither
 * served nor failed. Ended: everything fails, with the reason given. Apart from these states
 * the gate may be paused ({@link #pause()}): reads and writes wait, FLUSHes pass, until it
 * resumes (the session's lease may lapse: its renewals went unanswered). Waiting requests go
 * on in the order they came once the gate lets them through. The gate counts the requests it
 * let through until they complete, so that {@link #hold()} can tell when none is left.
 */
public final class IoGate {
    public enum Kind { READ, WRITE, FLUSH }

    private enum State { OPEN, STANDBY, HELD, ENDED }

    private record Waiter(Kind kind, CompletableFuture<Void> admitted) {}

    /** The gate of a session that never takes part in a handoff: it is never held. */
    static final IoGate ALWAYS = opened();

    private State state;
    private boolean paused;
    private RuntimeException ended;
    private int inFlight;
    private final Deque<Waiter> waiting = new ArrayDeque<>();
    private final List<CompletableFuture<Void>> drains = new ArrayList<>();
    private final List<CompletableFuture<Void>> openings = new ArrayList<>();

    private IoGate(State state) {
        this.state = state;
    }

    /** A gate that lets everything through. */
    public static IoGate opened() {
        return new IoGate(State.OPEN);
    }

    /** A gate in standby: writes wait. */
    public static IoGate standby() {
        return new IoGate(State.STANDBY);
    }

    /** A request that learns whether the gate let it through at once, on the caller, or after it waited. */
    @FunctionalInterface
    public interface Request<T> {
        CompletableFuture<T> start(boolean atOnce);
    }

    /** Runs {@code request} once the gate lets a request of its kind through; completes as its future does. */
    public <T> CompletableFuture<T> run(Kind kind, Supplier<CompletableFuture<T>> request) {
        return run(kind, atOnce -> request.get());
    }

    /** As {@link #run(Kind, Supplier)}, telling the request whether it waited. */
    public <T> CompletableFuture<T> run(Kind kind, Request<T> request) {
        if (this == ALWAYS) {
            // Shared by every session outside handoffs: nothing to count, and no monitor for all their requests to meet at.
            return request.start(true);
        }
        CompletableFuture<Void> admitted = admit(kind);
        boolean atOnce = admitted.isDone();
        return admitted.thenCompose(ignored -> {
            CompletableFuture<T> result;
            try {
                result = request.start(atOnce);
            } catch (RuntimeException e) {
                done();
                throw e;
            }
            return result.whenComplete((value, failure) -> done());
        });
    }

    private synchronized CompletableFuture<Void> admit(Kind kind) {
        if (state == State.ENDED) {
            return CompletableFuture.failedFuture(ended);
        }
        if (passes(kind)) {
            inFlight++;
            return CompletableFuture.completedFuture(null);
        }
        Waiter waiter = new Waiter(kind, new CompletableFuture<>());
        waiting.add(waiter);
        return waiter.admitted();
    }

    private boolean passes(Kind kind) {
        if (paused && kind != Kind.FLUSH) {
            return false;
        }
        return switch (state) {
            case OPEN -> true;
            case STANDBY -> kind != Kind.WRITE;
            case HELD -> kind == Kind.FLUSH;
            case ENDED -> false;
        };
    }

    private void done() {
        List<CompletableFuture<Void>> drained;
        synchronized (this) {
            if (--inFlight > 0 || drains.isEmpty()) {
                return;
            }
            drained = List.copyOf(drains);
            drains.clear();
        }
        drained.forEach(drain -> drain.complete(null));
    }

    /** Holds every read and write from now on (not of the gate that is never held); completes once none let through before is still running. */
    public CompletableFuture<Void> hold() {
        CompletableFuture<Void> drained = new CompletableFuture<>();
        synchronized (this) {
            if (state != State.ENDED) {
                state = State.HELD;
            }
            if (inFlight > 0) {
                drains.add(drained);
                return drained;
            }
        }
        drained.complete(null);
        return drained;
    }

    /** Serves everything again (unless paused), the waiting requests first, in the order they came. */
    public void release() {
        synchronized (this) {
            if (state == State.ENDED) {
                return;
            }
            state = State.OPEN;
        }
        admitWaiting();
    }

    /** Holds reads and writes, whatever the state, until {@link #resume()}; FLUSHes still pass. */
    public synchronized void pause() {
        paused = true;
    }

    /** Ends a pause: the waiting requests the state lets through go on, in the order they came. */
    public void resume() {
        synchronized (this) {
            paused = false;
        }
        admitWaiting();
    }

    /** Admits, in order, the waiting requests that pass now, and completes the openings if everything is served. */
    private void admitWaiting() {
        List<Waiter> admitted = new ArrayList<>();
        List<CompletableFuture<Void>> opened = List.of();
        synchronized (this) {
            for (var waiters = waiting.iterator(); waiters.hasNext(); ) {
                Waiter waiter = waiters.next();
                if (passes(waiter.kind())) {
                    admitted.add(waiter);
                    waiters.remove();
                }
            }
            inFlight += admitted.size();
            if (state == State.OPEN && !paused) {
                opened = List.copyOf(openings);
                openings.clear();
            }
        }
        admitted.forEach(waiter -> waiter.admitted().complete(null));
        opened.forEach(opening -> opening.complete(null));
    }

    /** Fails every waiting request and every later one with {@code reason}. */
    public void end(RuntimeException reason) {
        requireNonNull(reason, "reason is null");
        List<Waiter> failed;
        List<CompletableFuture<Void>> neverOpened;
        synchronized (this) {
            state = State.ENDED;
            ended = reason;
            failed = List.copyOf(waiting);
            waiting.clear();
            neverOpened = List.copyOf(openings);
            openings.clear();
        }
        failed.forEach(waiter -> waiter.admitted().completeExceptionally(reason));
        neverOpened.forEach(opening -> opening.completeExceptionally(reason));
    }

    /** Whether everything is served now. */
    public synchronized boolean isOpen() {
        return state == State.OPEN && !paused;
    }

    /**
     * Completes once the gate is open (at once when it is), on the thread that opens it;
     * fails with the reason once it ends.
     */
    public CompletableFuture<Void> whenOpen() {
        CompletableFuture<Void> opened = new CompletableFuture<>();
        synchronized (this) {
            if (state == State.ENDED) {
                return CompletableFuture.failedFuture(ended);
            }
            if (state != State.OPEN || paused) {
                openings.add(opened);
                return opened;
            }
        }
        opened.complete(null);
        return opened;
    }

    /** Requests waiting now. */
    public synchronized int waiting() {
        return waiting.size();
    }
}
