package io.heliotrope.storage.view;

import java.util.concurrent.CompletableFuture;

/**
 * Counts the time clients' requests spent waiting on other sites, by cause: a request's wait
 * runs from the moment it needs another site to the answer. Requests that wait together each
 * count, so the time counted in one second is the mean number of requests waiting on the WAN
 * during it (as iostat's queue size is for a disk).
 */
@FunctionalInterface
public interface WanWaits {
    WanWaits NONE = (cause, nanos) -> {};

    /** What a request waited for. */
    enum Cause {
        /** A read (or a partial write) of blocks current only at another site, until they arrived. */
        FETCH,
        /** A write in the {@code sync} mode, until the other sites held their copies. */
        SYNC,
        /** A request to a {@code remote} image away from its home, until the home answered. */
        REMOTE
    }

    /** A request waited {@code nanos} for {@code cause}. */
    void waited(Cause cause, long nanos);

    /** Counts the time from now until {@code waiting} completes, however it does; returns a stage that completes after the count. */
    default <T> CompletableFuture<T> time(Cause cause, CompletableFuture<T> waiting) {
        long start = System.nanoTime();
        return waiting.whenComplete((result, failure) -> waited(cause, System.nanoTime() - start));
    }
}
