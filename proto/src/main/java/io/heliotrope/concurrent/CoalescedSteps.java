package io.heliotrope.concurrent;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * Runs a step on an executor each time it is signalled, one run at a time: signals that come
 * while a step runs make one more run, not one each, and a step that signals itself runs again
 * after it returns. The signaller never blocks.
 */
public final class CoalescedSteps {
    private final Executor executor;
    private final Runnable step;
    private final Runnable refused;
    /** Requests for a step: the step runs again until it has seen them all. */
    private final AtomicInteger requests = new AtomicInteger();

    /** @param refused runs on the signaller when the executor refuses a run (it is shutting down) */
    public CoalescedSteps(Executor executor, Runnable step, Runnable refused) {
        this.executor = requireNonNull(executor, "executor is null");
        this.step = requireNonNull(step, "step is null");
        this.refused = requireNonNull(refused, "refused is null");
    }

    public void signal() {
        if (requests.getAndIncrement() == 0) {
            try {
                executor.execute(this::run);
            } catch (RejectedExecutionException e) {
                requests.set(0);
                refused.run();
            }
        }
    }

    private void run() {
        int seen = 1;
        do {
            step.run();
            seen = requests.addAndGet(-seen);
        } while (seen != 0);
    }
}
