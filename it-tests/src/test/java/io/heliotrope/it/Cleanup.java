package io.heliotrope.it;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Undo actions run in reverse order of registration, all of them even when some fail
 * (umount before losetup -d before fusermount3 -u). The first failure is thrown with the
 * others suppressed; in try-with-resources a failing test body keeps its own exception.
 */
final class Cleanup implements AutoCloseable {
    interface Action {
        void run() throws Exception;
    }

    private final Deque<Action> actions = new ArrayDeque<>();

    void add(Action action) {
        actions.push(action);
    }

    @Override
    public void close() {
        Throwable failure = null;
        while (!actions.isEmpty()) {
            try {
                actions.pop().run();
            } catch (Exception | Error e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure != null) {
            throw new IllegalStateException("cleanup failed", failure);
        }
    }
}
