package io.heliotrope.storage.peer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import static java.util.Objects.requireNonNull;

/**
 * Syncs a store for whoever asks, one sync at a time, holding no caller's thread: a request
 * completes once a sync that started after it has ended, and every request made while a
 * sync runs shares the next one (a journal's group commit). Thirty-two pushes in flight
 * then cost two syncs, not thirty-two.
 */
public final class GroupSync {
    private final Runnable sync;
    private final Executor executor;
    /** The sync under way, or null; guarded by this. */
    private CompletableFuture<Void> running;
    /** The sync that starts once the running one ends, for the requests made meanwhile; guarded by this. */
    private CompletableFuture<Void> next;

    /** @param sync makes every completed write durable (it blocks); run on {@code executor} */
    public GroupSync(Runnable sync, Executor executor) {
        this.sync = requireNonNull(sync, "sync is null");
        this.executor = requireNonNull(executor, "executor is null");
    }

    /** Completes once every write completed before this call is durable; fails as the sync does. */
    public CompletableFuture<Void> request() {
        CompletableFuture<Void> start;
        synchronized (this) {
            if (running != null) {
                if (next == null) {
                    next = new CompletableFuture<>();
                }
                return next;
            }
            running = new CompletableFuture<>();
            start = running;
        }
        start(start);
        return start;
    }

    private void start(CompletableFuture<Void> syncing) {
        try {
            executor.execute(() -> {
                try {
                    sync.run();
                    syncing.complete(null);
                } catch (RuntimeException e) {
                    syncing.completeExceptionally(e);
                } finally {
                    ended();
                }
            });
        } catch (RejectedExecutionException e) {
            syncing.completeExceptionally(e);
            ended();
        }
    }

    /** The running sync ended: the one the requests made meanwhile wait for starts. */
    private void ended() {
        CompletableFuture<Void> following;
        synchronized (this) {
            running = next;
            next = null;
            following = running;
        }
        if (following != null) {
            start(following);
        }
    }
}
