package io.heliotrope.it;

import java.util.function.Consumer;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link ChildProcess} that a test may crash and start again, keeping what it printed
 * across restarts. The owner supplies how to launch it and how to wait until it is ready;
 * a process that does not get ready is killed. Stopping fails if it did not stop in time.
 */
final class RestartableProcess implements AutoCloseable {
    private final String label;
    private final Supplier<ChildProcess> launch;
    private final Consumer<ChildProcess> awaitReady;
    private final StringBuilder earlierLogs = new StringBuilder();
    private ChildProcess process;

    /** {@code label} names the process in failure messages, e.g. {@code site} or {@code controller-0}. */
    RestartableProcess(String label, Supplier<ChildProcess> launch, Consumer<ChildProcess> awaitReady) {
        this.label = requireNonNull(label, "label is null");
        this.launch = requireNonNull(launch, "launch is null");
        this.awaitReady = requireNonNull(awaitReady, "awaitReady is null");
    }

    /** Launches the process and waits until it is ready; kills it if it does not get there. */
    void start() {
        process = launch.get();
        try {
            awaitReady.accept(process);
        } catch (RuntimeException | AssertionError e) {
            process.kill9();
            throw e;
        }
    }

    boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** SIGKILL, as a crash would; returns once the process is gone. */
    void kill9() {
        process.kill9();
    }

    /** Stops the process if it runs, then starts it again. */
    void restart() {
        if (process.isAlive()) {
            stop();
        }
        earlierLogs.append(process.output()).append("---- restarted ----\n");
        start();
    }

    /** Everything the process printed, across restarts. */
    String log() {
        return earlierLogs + (process == null ? "" : process.output());
    }

    /** Stops the process if it runs; fails if it did not stop on SIGTERM. */
    @Override
    public void close() {
        if (isRunning()) {
            stop();
        }
    }

    private void stop() {
        boolean graceful = process.stop();
        assertThat(graceful).as("%s stopped within 20 s of SIGTERM; log:%n%s", label, log()).isTrue();
    }
}
