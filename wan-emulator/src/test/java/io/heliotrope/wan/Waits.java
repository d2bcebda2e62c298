package io.heliotrope.wan;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

final class Waits {
    private Waits() {}

    /** Polls {@code condition} until it holds, failing the test after {@code timeout}. */
    static void until(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("condition still false after " + timeout);
            }
            // Polls every 5 ms: the condition is someone else's progress, not worth a core.
            LockSupport.parkNanos(5_000_000);
        }
    }
}
