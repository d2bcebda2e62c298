package io.heliotrope.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A long-running child process whose stdout and stderr (merged) are collected by a
 * named thread, so a test can wait for a line to appear. Its stdin stays open until
 * {@link #close()}; closing stops it and everything it started.
 */
final class ChildProcess implements AutoCloseable {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final String name;
    private final Process process;
    private final StringBuilder output = new StringBuilder();
    private boolean outputEnded;

    private ChildProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread pump = new Thread(this::pumpOutput, "output-" + name + "-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    static ChildProcess start(String name, List<String> command) {
        return start(name, command, Map.of());
    }

    /** Starts {@code command} with {@code env} added to (and overriding) {@link Tools#environment()}. */
    static ChildProcess start(String name, List<String> command, Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(Tools.environment());
        builder.environment().putAll(env);
        try {
            return new ChildProcess(name, builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + Tools.display(command), e);
        }
    }

    /** Waits until the output matches {@code pattern}; fails early, with the output, if the process exits first. */
    Matcher awaitOutput(Pattern pattern, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (output) {
            while (true) {
                Matcher matcher = pattern.matcher(output);
                if (matcher.find()) {
                    return matcher;
                }
                long left = deadline - System.nanoTime();
                if (outputEnded || left <= 0) {
                    throw new AssertionError("%s %s before printing /%s/; its output:%n%s".formatted(
                            name, outputEnded ? "exited" : "timed out after " + timeout, pattern, output));
                }
                try {
                    output.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for " + name, e);
                }
            }
        }
    }

    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /** The exit code of a process that has ended. */
    int exitCode() {
        return process.exitValue();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, as a crash would; returns once the process is gone. */
    void kill9() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        awaitExit(STOP_TIMEOUT);
    }

    /** SIGTERM, then SIGKILL if it has not exited within 20 s; returns whether it stopped on SIGTERM. */
    boolean stop() {
        closeStdin();
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        if (awaitExit(STOP_TIMEOUT)) {
            return true;
        }
        kill9();
        return false;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            stop();
        }
    }

    private boolean awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while stopping " + name, e);
        }
    }

    /** Ends the process's input: a script that waits for it to end goes on. */
    void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the process has gone already
        }
    }

    private void pumpOutput() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (output) {
                    output.append(line).append('\n');
                    output.notifyAll();
                }
            }
        } catch (IOException e) {
            // the pipe closed under us: the process is gone
        } finally {
            synchronized (output) {
                outputEnded = true;
                output.notifyAll();
            }
        }
    }
}
