package io.heliotrope.scheduler.runner;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** Records what a {@link VmConsole} sends, checking that offsets follow on; ready for as many messages as the test says. */
final class TestingConsoleSink implements VmConsole.Sink {
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private long firstOffset = -1;
    private int ready = Integer.MAX_VALUE;
    private String ended;

    synchronized void readyFor(int messages) {
        ready = messages;
    }

    @Override
    public synchronized boolean ready() {
        return ready > 0;
    }

    @Override
    public synchronized void data(long offset, byte[] bytes) {
        assertThat(offset).isEqualTo(firstOffset < 0 ? offset : firstOffset + data.size());
        firstOffset = firstOffset < 0 ? offset : firstOffset;
        data.writeBytes(bytes);
        ready--;
        notifyAll();
    }

    @Override
    public synchronized void ended(String reason) {
        ended = reason;
        notifyAll();
    }

    synchronized long firstOffset() {
        return firstOffset;
    }

    synchronized String ended() {
        return ended;
    }

    synchronized byte[] bytes() {
        return data.toByteArray();
    }

    synchronized String text() {
        return data.toString(StandardCharsets.UTF_8);
    }

    /** Waits until the text received satisfies {@code condition}; fails after {@code deadline}. */
    synchronized void await(Predicate<String> condition, Duration deadline) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.test(text())) {
            long left = end - System.nanoTime();
            assertThat(left).as("console output so far: %s", text()).isPositive();
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** The exit reason, once the console ended; fails after {@code deadline}. */
    synchronized String awaitEnd(Duration deadline) throws InterruptedException {
        await(text -> ended != null, deadline);
        return ended;
    }
}
