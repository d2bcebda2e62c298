package io.heliotrope.cli.up;

import io.heliotrope.cli.Helio;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The controllers {@code helio up --controllers N} runs beside its own: each a {@code helio
 * controller} child process on the same ZooKeeper, so that a drill can kill one
 * ({@code kill -9 PID}) and watch the sites go on through the others. Stopped with SIGTERM
 * when {@code helio up} stops.
 */
final class ControllerProcesses implements AutoCloseable {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Pattern LISTENING = Pattern.compile("controller listening on (\\S+:\\d+) ");

    /** One child controller: where it listens, its pid, and its log. */
    record Child(String target, long pid, Path log) {}

    private final List<Process> processes = new ArrayList<>();
    private final List<Child> children = new ArrayList<>();

    private ControllerProcesses() {}

    /**
     * Starts {@code count} controllers on {@code zookeeper}, each with the secret in {@code secret},
     * the i-th on gRPC port {@code firstGrpcPort + i} and status port {@code firstStatusPort + i} (0: free ones), each
     * logging to {@code logs/controller-I.log}, and waits until each listens.
     */
    static ControllerProcesses start(int count, String zookeeper, Path secret, String bind, int firstGrpcPort, int firstStatusPort, Path logs) {
        ControllerProcesses started = new ControllerProcesses();
        try {
            for (int i = 0; i < count; i++) {
                Path log = logs.resolve("controller-" + (i + 1) + ".log");
                started.start(List.of("controller", "--zookeeper", zookeeper, "--zookeeper-auth-file", secret.toString(), "--bind", bind,
                        "--grpc-port", port(firstGrpcPort, i), "--status-port", port(firstStatusPort, i), "--log-file", log.toString()), log);
            }
            return started;
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }

    private static String port(int first, int i) {
        return Integer.toString(first == 0 ? 0 : first + i);
    }

    List<Child> children() {
        return List.copyOf(children);
    }

    private void start(List<String> arguments, Path log) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx512m", "-cp",
                System.getProperty("java.class.path"), Helio.class.getName()));
        command.addAll(arguments);
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "cannot start another controller: " + e.getMessage(), e);
        }
        processes.add(process);
        CompletableFuture<String> listening = new CompletableFuture<>();
        Thread output = new Thread(() -> drain(process, listening), "controller-" + process.pid() + "-output");
        output.setDaemon(true);
        output.start();
        try {
            children.add(new Child(listening.get(STARTUP.toSeconds(), TimeUnit.SECONDS), process.pid(), log));
        } catch (ExecutionException e) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "another controller (pid " + process.pid() + ") did not start: "
                    + e.getCause().getMessage() + "; its log: " + log, e);
        } catch (TimeoutException e) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "another controller (pid " + process.pid() + ") did not start within "
                    + STARTUP.toSeconds() + " s; its log: " + log, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "interrupted while another controller started", e);
        }
    }

    /** Reads the child's console to its end (its full log is in its file): tells where it listens, or that it ended first. */
    private static void drain(Process process, CompletableFuture<String> listening) {
        String last = "";
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                Matcher matcher = LISTENING.matcher(line);
                if (matcher.find()) {
                    listening.complete(matcher.group(1));
                }
                last = line;
            }
        } catch (IOException e) {
            listening.completeExceptionally(e);
        }
        listening.completeExceptionally(new IllegalStateException("it exited before it listened, saying: " + last));
    }

    @Override
    public void close() {
        processes.forEach(Process::destroy);
        for (Process process : processes) {
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
