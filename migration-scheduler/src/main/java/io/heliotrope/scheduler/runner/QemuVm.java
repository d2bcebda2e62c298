package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.QmpClient;
import io.heliotrope.scheduler.qmp.QmpCommand;
import io.heliotrope.scheduler.qmp.QmpCommands;
import io.heliotrope.scheduler.qmp.QmpEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * One QEMU the runner owns: its QMP connection, why it exited, and what this site saw of its
 * current migration (event times, the handover, an error). Thread-safe.
 */
final class QemuVm {
    private static final Logger log = LoggerFactory.getLogger(QemuVm.class);
    static final String EXIT_REASON_FILE = "exit-reason";

    private final String site;
    private final VmFiles files;
    private final LaunchRecord launch;
    private final long pid;
    private final QmpClient qmp;
    private final List<Consumer<VmEvent>> watchers = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    // Guarded by lock.
    private String exitReason;
    /** Completes once the end of the QMP connection was handled: the exit reason is recorded. */
    private final CompletableFuture<Void> recorded;
    private final CompletableFuture<String> exit = new CompletableFuture<>();
    private final ConsoleSocket console;
    private String intendedExit;
    private String shutdownReason;
    private boolean detached;
    private long stop;
    private long preSwitchover;
    private long device;
    private long completed;
    private long resume;
    private HandoverState handover = HandoverState.NONE;
    private String handoverError = "";
    private String error = "";
    private String migrationStatus = VmRuntime.NO_MIGRATION;

    /** A QEMU that runs, reached through {@code qmp}. */
    QemuVm(String site, VmFiles files, LaunchRecord launch, long pid, QmpClient qmp) {
        this.site = requireNonNull(site, "site is null");
        this.files = requireNonNull(files, "files is null");
        this.launch = requireNonNull(launch, "launch is null");
        this.pid = pid;
        this.qmp = qmp;
        this.console = new ConsoleSocket(launch.definition().name(), files.consoleSocket());
        if (qmp != null) {
            qmp.addListener(this::onEvent);
            recorded = qmp.closed().thenRun(this::onClosed);
        } else {
            recorded = CompletableFuture.completedFuture(null);
        }
    }

    /** A QEMU found dead. */
    static QemuVm exited(String site, VmFiles files, LaunchRecord launch, long pid, String reason) {
        QemuVm vm = new QemuVm(site, files, launch, pid, null);
        vm.exitReason = reason;
        vm.exit.complete(reason);
        return vm;
    }

    String name() {
        return launch.definition().name();
    }

    LaunchRecord launch() {
        return launch;
    }

    long pid() {
        return pid;
    }

    VmFiles files() {
        return files;
    }

    /** Completes with the exit reason once QEMU exited (never, once detached). */
    CompletableFuture<String> exit() {
        return exit;
    }

    /** Writes {@code input} to the guest's serial port. */
    void type(byte[] input) throws IOException {
        if (exited()) {
            throw new IOException("vm " + name() + " does not run at " + site);
        }
        console.write(input);
    }

    /** {@code query-migrate}'s status, read by a runner that re-attached (later ones come as MIGRATION events). */
    void migrationStatus(String status) {
        synchronized (lock) {
            migrationStatus = status == null ? VmRuntime.NO_MIGRATION : status;
        }
    }

    boolean exited() {
        synchronized (lock) {
            return exitReason != null;
        }
    }

    /** A QMP call; QEMU's refusal or its exit fail it as {@code VM_BUSY}. */
    <R> CompletableFuture<R> call(QmpCommand<R> command) {
        if (qmp == null) {
            return CompletableFuture.failedFuture(notRunning());
        }
        return qmp.call(command).handle((value, failure) -> {
            if (failure != null) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, HeliotropeException.rootMessage(failure), failure);
            }
            return value;
        });
    }

    /** Adds a QMP event listener; it runs on the QMP reader (see {@link QmpClient}). */
    Runnable addQmpListener(Consumer<QmpEvent> listener) {
        return qmp == null ? () -> { } : qmp.addListener(listener);
    }

    Runnable watch(Consumer<VmEvent> watcher) {
        watchers.add(requireNonNull(watcher, "watcher is null"));
        return () -> watchers.remove(watcher);
    }

    /** Sends a runner event to the watchers, timed now. */
    void publish(String event, String detail) {
        publish(new VmEvent(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()), event, detail));
    }

    CompletableFuture<VmRuntime> runtime() {
        if (exited()) {
            return CompletableFuture.completedFuture(runtime(VmRuntime.EXITED));
        }
        return call(QmpCommands.QUERY_STATUS).handle((status, failure) -> runtime(failure == null ? status.status() : VmRuntime.EXITED));
    }

    VmRuntime runtime(String state) {
        String reason;
        String migration;
        synchronized (lock) {
            reason = exitReason == null ? "" : exitReason;
            migration = migrationStatus;
        }
        return new VmRuntime(name(), site, stateOf(state, reason), pid, reason, files.dir(), files.consoleLog(),
                launch.startedEpochMillis(), launch.incoming(), launch.migrationPort(), migration);
    }

    /** Sends {@code quit}; when QEMU has not exited within {@code patience}, kills it. Completes once it is gone. */
    CompletableFuture<Void> quit(Duration patience) {
        synchronized (lock) {
            intendedExit = intendedExit == null ? "quit" : intendedExit;
        }
        call(QmpCommands.Action.QUIT);
        return awaitExit(patience).exceptionallyCompose(timeout -> kill(patience));
    }

    /** SIGKILL; completes once the process is gone. */
    CompletableFuture<Void> kill(Duration patience) {
        synchronized (lock) {
            intendedExit = "killed";
        }
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        return awaitExit(patience);
    }

    /** Leaves QEMU running and closes its QMP connection (the runner is closing). */
    void detach() {
        synchronized (lock) {
            detached = true;
        }
        console.close();
        if (qmp != null) {
            qmp.close();
        }
    }

    /** Begins a migration's bookkeeping: times cleared, the handover {@code ARMED}, {@code HELD} or {@code NONE}. */
    void beginMigration(HandoverState state) {
        synchronized (lock) {
            stop = preSwitchover = device = completed = resume = 0;
            handover = state;
            handoverError = "";
            error = "";
        }
    }

    /** A migration out of here ended without a switchover: no longer armed or held (a failed handover stays FAILED). */
    void endMigration() {
        synchronized (lock) {
            if (handover == HandoverState.ARMED || handover == HandoverState.HELD) {
                handover = HandoverState.NONE;
            }
        }
    }

    void handover(HandoverState state, String reason) {
        synchronized (lock) {
            handover = state;
            handoverError = reason;
        }
        publish(VmEvent.HANDOVER, state == HandoverState.FAILED ? "failed: " + reason : state.name().toLowerCase(Locale.ROOT));
    }

    HandoverState handoverState() {
        synchronized (lock) {
            return handover;
        }
    }

    void error(String message) {
        synchronized (lock) {
            error = message;
        }
    }

    /** The handover's state, its error and the migration's event times and error, in that order. */
    MigrationView migrationView() {
        synchronized (lock) {
            return new MigrationView(handover, handoverError, new MigrationTimes(stop, preSwitchover, device, completed, resume), error);
        }
    }

    record MigrationView(HandoverState handover, String handoverError, MigrationTimes times, String error) {}

    private CompletableFuture<Void> awaitExit(Duration patience) {
        CompletableFuture<Void> gone = ProcessHandle.of(pid).map(handle -> handle.onExit().thenRun(() -> { }))
                .orElse(CompletableFuture.completedFuture(null));
        return CompletableFuture.allOf(gone, recorded).orTimeout(patience.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void onEvent(QmpEvent event) {
        synchronized (lock) {
            if (event instanceof QmpEvent.Stop) {
                stop = event.timestampMicros();
            } else if (event instanceof QmpEvent.Resume) {
                resume = event.timestampMicros();
            } else if (event instanceof QmpEvent.Shutdown shutdown) {
                shutdownReason = shutdown.reason();
            } else if (event instanceof QmpEvent.Migration migration) {
                migrationStatus = migration.status();
                switch (migration.status()) {
                    case "pre-switchover" -> preSwitchover = event.timestampMicros();
                    case "device" -> device = event.timestampMicros();
                    case "completed" -> completed = event.timestampMicros();
                    default -> { }
                }
            }
        }
        publish(new VmEvent(event.timestampMicros(), event.name(), event.detail()));
    }

    private void onClosed() {
        String reason;
        synchronized (lock) {
            if (detached) {
                return;
            }
            reason = intendedExit != null ? intendedExit : shutdownReason(shutdownReason, files.logTail());
            exitReason = reason;
        }
        log.info("{}: QEMU (pid {}) exited: {}", name(), pid, reason);
        console.close();
        try {
            Files.writeString(files.dir().resolve(EXIT_REASON_FILE), reason, StandardCharsets.UTF_8);
        } catch (IOException e) {
            log.warn("{}: cannot record why QEMU exited", name(), e);
        }
        publish(VmEvent.EXITED, reason);
        exit.complete(reason);
    }

    private static String shutdownReason(String shutdown, String logTail) {
        if (shutdown == null) {
            return logTail.isEmpty() ? "crashed" : "crashed: " + logTail;
        }
        return switch (shutdown) {
            case "host-qmp-quit" -> "quit";
            case "guest-shutdown" -> "guest shut down";
            case "host-signal" -> "killed by a signal" + (logTail.isEmpty() ? "" : ": " + logTail);
            default -> shutdown;
        };
    }

    private static String stateOf(String state, String reason) {
        return reason.isEmpty() ? state : VmRuntime.EXITED;
    }

    private void publish(VmEvent event) {
        for (Consumer<VmEvent> watcher : watchers) {
            try {
                watcher.accept(event);
            } catch (RuntimeException e) {
                log.warn("{}: a watcher failed on {}", name(), event, e);
            }
        }
    }

    private HeliotropeException notRunning() {
        return new HeliotropeException(ErrorCode.VM_BUSY, "vm " + name() + " does not run at " + site);
    }
}
