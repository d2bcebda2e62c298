package io.heliotrope.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Threads that share one copy, one per connection: the first failure stops the others and is what the copy fails with. */
final class Workers {
    interface Task {
        void run(int index) throws IOException;
    }

    private Workers() {}

    /**
     * Runs {@code task} on {@code count} threads named {@code name-INDEX} and waits for all.
     * When one fails, {@code stop} runs (it closes the connections, so that the others fail
     * too, at once) and that first failure is thrown; the others' are dropped, as they
     * follow from it.
     */
    static void run(String name, int count, Task task, Runnable stop) throws IOException, InterruptedException {
        Throwable[] first = new Throwable[1];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int index = i;
            Thread thread = new Thread(() -> {
                try {
                    task.run(index);
                } catch (Throwable e) {
                    boolean stopOthers;
                    synchronized (first) {
                        stopOthers = first[0] == null;
                        if (stopOthers) {
                            first[0] = e;
                        }
                    }
                    if (stopOthers) {
                        stop.run();
                    }
                }
            }, name + "-" + i);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        Throwable failure = first[0];
        if (failure instanceof IOException e) {
            throw e;
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }
}
