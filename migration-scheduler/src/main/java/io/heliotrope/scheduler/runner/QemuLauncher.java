package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.QmpClient;
import io.heliotrope.scheduler.qmp.QmpCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Starts QEMUs detached ({@code -daemonize}: QEMU forks into its own session and its first
 * process exits once the guest's devices and sockets are ready) and finds them again after
 * a restart: pidfile alive, command line naming its QMP socket, QMP answering.
 */
final class QemuLauncher {
    private static final Logger log = LoggerFactory.getLogger(QemuLauncher.class);
    private static final Duration LAUNCH_TIMEOUT = Duration.ofSeconds(60);

    private final RunnerConfig config;
    private final QmpCodec codec;
    private final Duration qmpTimeout;

    QemuLauncher(RunnerConfig config, QmpCodec codec, Duration qmpTimeout) {
        this.config = config;
        this.codec = codec;
        this.qmpTimeout = qmpTimeout;
    }

    /** {@code TOOL_MISSING}, naming the Debian package, when the configured QEMU is not there. */
    void checkInstalled() {
        String qemu = config.qemuBinary();
        Stream<Path> candidates = qemu.contains("/")
                ? Stream.of(Path.of(qemu))
                : Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)).filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, qemu));
        if (candidates.noneMatch(Files::isExecutable)) {
            throw new HeliotropeException(ErrorCode.TOOL_MISSING, qemu + " is not installed: apt-get install qemu-system-x86");
        }
    }

    QemuVm launch(VmDefinition vm, boolean incoming, int port, InetSocketAddress nbd) throws IOException {
        VmFiles files = VmFiles.of(config.stateDir(), vm.name());
        Files.createDirectories(files.dir());
        for (Path stale : List.of(files.pidfile(), files.qmpSocket(), files.consoleSocket(), files.migrationRecord(), files.dir().resolve(QemuVm.EXIT_REASON_FILE))) {
            Files.deleteIfExists(stale);
        }
        long consoleStart = Files.exists(files.consoleLog()) ? Files.size(files.consoleLog()) : 0;
        LaunchRecord launch = new LaunchRecord(vm, incoming, port, System.currentTimeMillis(), consoleStart);
        launch.write(files.launchRecord());
        List<String> command = QemuCommandLine.of(config.qemuBinary(), vm, files, nbd, incoming);
        log.info("{}: starting {}", vm.name(), String.join(" ", command));
        Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(files.qemuLog().toFile()))
                .start();
        try {
            if (!process.waitFor(LAUNCH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new HeliotropeException(ErrorCode.VM_BUSY, "vm " + vm.name() + ": QEMU did not start within " + LAUNCH_TIMEOUT.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting vm " + vm.name(), e);
        }
        if (process.exitValue() != 0) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "vm " + vm.name() + ": QEMU did not start: " + files.logTail());
        }
        long pid = files.pid().orElseThrow(() -> new IOException("vm " + vm.name() + ": QEMU wrote no pidfile " + files.pidfile()));
        return new QemuVm(config.site(), files, launch, pid, QmpClient.connect(files.qmpSocket(), vm.name(), codec, qmpTimeout));
    }

    /** The VM of {@code files} as found now (running or exited), or null when the directory holds none. */
    QemuVm reattach(VmFiles files) {
        LaunchRecord launch;
        try {
            launch = LaunchRecord.read(files.launchRecord());
        } catch (IOException e) {
            log.warn("{}: no VM to re-attach to: {}", files.dir(), e.getMessage());
            return null;
        }
        String name = launch.definition().name();
        long pid = files.pid().orElse(0);
        boolean ours = ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .flatMap(handle -> handle.info().commandLine())
                .filter(line -> line.contains(files.qmpSocket().toString()))
                .isPresent();
        if (!ours) {
            return QemuVm.exited(config.site(), files, launch, pid, pastExitReason(files));
        }
        try {
            QemuVm vm = new QemuVm(config.site(), files, launch, pid, QmpClient.connect(files.qmpSocket(), name, codec, qmpTimeout));
            log.info("{}: re-attached to QEMU (pid {})", name, pid);
            return vm;
        } catch (IOException e) {
            log.warn("{}: QEMU (pid {}) runs but does not answer on QMP: {}", name, pid, e.getMessage());
            return QemuVm.exited(config.site(), files, launch, pid, "unreachable over QMP (pid " + pid + " runs): " + e.getMessage());
        }
    }

    /** Waits for a QMP call made while setting a VM up, outside QMP's reader. */
    <T> T await(CompletableFuture<T> call) {
        try {
            return call.get(qmpTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw HeliotropeException.unwrap(e) instanceof HeliotropeException h ? h : new HeliotropeException(ErrorCode.VM_BUSY, HeliotropeException.rootMessage(e), e);
        } catch (TimeoutException e) {
            throw new HeliotropeException(ErrorCode.VM_BUSY, "QEMU did not answer within " + qmpTimeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "interrupted while waiting for QEMU");
        }
    }

    private static String pastExitReason(VmFiles files) {
        try {
            return Files.readString(files.dir().resolve(QemuVm.EXIT_REASON_FILE), StandardCharsets.UTF_8);
        } catch (IOException e) {
            String tail = files.logTail();
            return "exited while no runner watched it" + (tail.isEmpty() ? "" : ": " + tail);
        }
    }
}
