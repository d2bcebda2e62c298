package io.heliotrope.storage.rocksdb;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * A reentrant lock whose holder runs, before it lets go, the work that other threads
 * queued meanwhile: a thread with work to do queues it and goes on instead of waiting
 * for the lock, and work queued together runs together. The holder runs the queue,
 * lets go, completes what it ran, and looks at the queue again, so work queued by a
 * thread that found the lock taken is never left behind.
 *
 * @param <T> a piece of work
 */
final class CombiningLock<T> {
    private final ReentrantLock lock = new ReentrantLock();
    private final Queue<T> queue = new ConcurrentLinkedQueue<>();
    private final BiConsumer<Queue<T>, List<T>> runner;
    private final Consumer<T> completer;

    /**
     * @param runner runs the work it polls from the queue, under the lock, until the
     * queue is empty, and adds each piece it ran to the list
     * @param completer completes a piece of work that ran, after the lock is let go
     */
    CombiningLock(BiConsumer<Queue<T>, List<T>> runner, Consumer<T> completer) {
        this.runner = requireNonNull(runner, "runner is null");
        this.completer = requireNonNull(completer, "completer is null");
    }

    void lock() {
        lock.lock();
    }

    boolean tryLock() {
        return lock.tryLock();
    }

    /** Queues work, to run by the next {@link #runQueued()} or holder that lets go. */
    void queue(T work) {
        queue.add(work);
    }

    /** Runs the queued work now, unless another thread holds the lock and so will. */
    void runQueued() {
        if (!queue.isEmpty() && lock.tryLock()) {
            unlock(new ArrayList<>());
        }
    }

    /** Runs the queued work, under the lock held; adds what ran to {@code ran}, to complete after {@link #unlock(List)}. */
    void runQueuedLocked(List<T> ran) {
        runner.accept(queue, ran);
    }

    void unlock() {
        unlock(new ArrayList<>());
    }

    /**
     * Lets go of the lock, first running the queued work unless the lock is held more than
     * once; then completes that work and {@code ran}, and runs what was queued since, unless
     * another thread took the lock. A queuer that found the lock taken queued before this
     * holder let go, so the holder sees its work.
     */
    void unlock(List<T> ran) {
        if (lock.getHoldCount() > 1) {
            lock.unlock();
            ran.forEach(completer);
            ran.clear();
            return;
        }
        do {
            try {
                runner.accept(queue, ran);
            } finally {
                lock.unlock();
            }
            ran.forEach(completer);
            ran.clear();
        } while (!queue.isEmpty() && lock.tryLock());
    }
}
