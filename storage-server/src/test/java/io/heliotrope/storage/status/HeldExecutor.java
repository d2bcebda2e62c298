package io.heliotrope.storage.status;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/** An executor that keeps what it is given until the test runs it. */
final class HeldExecutor extends AbstractExecutorService {
    private final Queue<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
    }

    int waiting() {
        return tasks.size();
    }

    void runAll() {
        for (Runnable task; (task = tasks.poll()) != null; ) {
            task.run();
        }
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
        return List.copyOf(tasks);
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }
}
