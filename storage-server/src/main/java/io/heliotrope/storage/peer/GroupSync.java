package io.heliotrope.storage.peer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Syncs a store for whoever asks, one sync at a time, holding no caller's thread: the
 * requests made while a sync runs share the next one (a journal's group commit). Thirty-two
 * pushes in flight then cost two syncs, not thirty-two.
 *
 * <p>A writer may mark its write once it is stored ({@link #stored()}) and ask later for a
 * sync that covers the mark ({@link #request(long)}): a sync that started after the mark
 * does, even one asked for by another write, and a sync that already covered it leaves
 * nothing to wait for. A FLUSH that follows a write whose sync is under way shares it.
 */
public final class GroupSync {
    private final Runnable sync;
    private final Executor executor;
    /** Marks handed out: each write stored before a sync reads this is covered by that sync. */
    private final AtomicLong marks = new AtomicLong();
    /** The sync under way, or null; guarded by this. */
    private CompletableFuture<Void> running;
    /** The highest mark the running sync covers; until it starts, every mark handed out (it reads them as it starts); guarded by this. */
    private long runningCovers = Long.MAX_VALUE;
    /** The highest mark a completed sync covered; guarded by this. */
    private long covered;
    /** The sync that starts once the running one ends, for the requests made meanwhile; guarded by this. */
    private CompletableFuture<Void> next;

    /** @param sync makes every completed write durable (it blocks); run on {@code executor} */
    public GroupSync(Runnable sync, Executor executor) {
        this.sync = requireNonNull(sync, "sync is null");
        this.executor = requireNonNull(executor, "executor is null");
    }

    /** A write completed: returns its mark, for {@link #request(long)}. */
    public long stored() {
        return marks.incrementAndGet();
    }

    /** Completes once every write completed before this call is durable; fails as the sync does. */
    public CompletableFuture<Void> request() {
        return request(stored());
    }

    /** Completes once every write marked {@code mark} or lower is durable; fails as the sync does. */
    public CompletableFuture<Void> request(long mark) {
        CompletableFuture<Void> start;
        synchronized (this) {
            if (mark <= covered) {
                return CompletableFuture.completedFuture(null);
            }
            if (running != null) {
                if (mark <= runningCovers) {
                    return running;
                }
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
                long covers;
                synchronized (this) {
                    covers = marks.get();
                    runningCovers = covers;
                }
                try {
                    sync.run();
                    synchronized (this) {
                        covered = Math.max(covered, covers);
                    }
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
            runningCovers = Long.MAX_VALUE;
            next = null;
            following = running;
        }
        if (following != null) {
            start(following);
        }
    }
}
