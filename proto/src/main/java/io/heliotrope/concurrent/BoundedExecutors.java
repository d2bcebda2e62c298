package io.heliotrope.concurrent;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Executors with a fixed number of named daemon threads ({@code name-1}, {@code name-2}, ...)
 * that refuse work beyond a bounded queue instead of piling it up. Their owner shuts them down.
 */
public final class BoundedExecutors {
    private BoundedExecutors() {}

    public static ExecutorService fixed(String name, int threads, int queued) {
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queued), named(name));
    }

    /**
     * A scheduled pool that refuses a new task while {@code queued} tasks wait; a periodic
     * task waits between its runs too, and leaves the queue once cancelled.
     */
    public static ScheduledThreadPoolExecutor scheduled(String name, int threads, int queued) {
        ScheduledThreadPoolExecutor executor = new BoundedScheduledExecutor(threads, named(name), queued);
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** Runs {@code action} on {@code executor}; a refusal fails the future as {@code SHUTTING_DOWN} or, when full, {@code PEER_UNAVAILABLE}. */
    public static <T> CompletableFuture<T> supplyAsync(Supplier<T> action, ExecutorService executor, String owner) {
        try {
            return CompletableFuture.supplyAsync(action, executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(executor.isShutdown()
                    ? new HeliotropeException(ErrorCode.SHUTTING_DOWN, owner + " is shutting down")
                    : new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, owner + " is overloaded; try again"));
        }
    }

    /** Lets queued work finish for up to {@code patience}, then interrupts what still runs. */
    public static void shutdown(ExecutorService executor, Duration patience) throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            executor.shutdownNow();
        }
    }

    private static ThreadFactory named(String name) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private static final class BoundedScheduledExecutor extends ScheduledThreadPoolExecutor {
        private final int queued;

        BoundedScheduledExecutor(int threads, ThreadFactory factory, int queued) {
            super(threads, factory);
            this.queued = queued;
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
            return admit(task);
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable, RunnableScheduledFuture<V> task) {
            return admit(task);
        }

        private <V> RunnableScheduledFuture<V> admit(RunnableScheduledFuture<V> task) {
            if (getQueue().size() >= queued) {
                throw new RejectedExecutionException("all " + queued + " places of the queue are taken");
            }
            return task;
        }
    }
}
