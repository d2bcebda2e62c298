package io.heliotrope.wan;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Fails when a ByteBuf became unreachable without being released. */
final class LeakCheck {
    static final String CANARY = "leak canary";

    private static final AtomicInteger CANARIES = new AtomicInteger();

    private LeakCheck() {}

    /**
     * Leaks a canary buffer on purpose and collects garbage until the detector has reported it:
     * by then it has seen every buffer that became unreachable before the canary.
     */
    static void assertNoLeaks() {
        String canary = CANARY + " #" + CANARIES.incrementAndGet() + "#";
        ByteBufAllocator.DEFAULT.buffer(1).touch(canary);
        Waits.until(() -> {
            System.gc();
            // The detector looks for collected buffers when a buffer is allocated.
            ByteBuf probe = ByteBufAllocator.DEFAULT.buffer(1);
            probe.release();
            return TestingLeakDetector.leaks().stream().anyMatch(leak -> leak.contains(canary));
        }, Duration.ofSeconds(10));
        assertThat(TestingLeakDetector.leaks()).allMatch(leak -> leak.contains(CANARY));
    }
}
