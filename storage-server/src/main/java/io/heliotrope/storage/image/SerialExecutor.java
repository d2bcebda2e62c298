package io.heliotrope.storage.image;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * Runs one connection's tasks in order on a shared pool, one drain at a time: a burst
 * of requests costs one hand-off to the pool, not one per request.
 */
final class SerialExecutor implements Executor {
    private final Executor pool;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();

    SerialExecutor(Executor pool) {
        this.pool = requireNonNull(pool, "pool is null");
    }

    /** Refuses the task when the pool refuses to run a drain (it is full or closed); the next task tries again. */
    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        if (draining.compareAndSet(false, true)) {
            try {
                pool.execute(this::drain);
            } catch (RejectedExecutionException e) {
                tasks.remove(task);
                draining.set(false);
                throw e;
            }
        }
    }

    private void drain() {
        while (true) {
            Runnable task;
            while ((task = tasks.poll()) != null) {
                task.run();
            }
            draining.set(false);
            // A task added after the last poll but before the flag was cleared is ours to run.
            if (tasks.isEmpty() || !draining.compareAndSet(false, true)) {
                return;
            }
        }
    }
}
