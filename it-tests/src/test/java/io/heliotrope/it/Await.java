package io.heliotrope.it;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition that nothing signals (a file appearing, a gauge moving) by re-checking it until a deadline. */
final class Await {
    private static final long POLL_NANOS = Duration.ofMillis(20).toNanos();

    private Await() {}

    static void until(String what, Duration timeout, BooleanSupplier condition) {
        if (!within(timeout, condition)) {
            throw new AssertionError("timed out after " + timeout + " waiting until " + what);
        }
    }

    /** Whether the condition came true within {@code timeout}. */
    static boolean within(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return true;
    }
}
