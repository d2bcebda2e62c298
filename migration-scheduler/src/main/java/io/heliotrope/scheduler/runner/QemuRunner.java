package io.heliotrope.scheduler.runner;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.MigrationInfo;
import io.heliotrope.scheduler.qmp.QmpCodec;
import io.heliotrope.scheduler.qmp.QmpCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Runs a site's VMs: each a QEMU started detached (its own session, pidfile, QMP and console
 * sockets and logs in {@code <stateDir>/vms/<name>/}), driven over QMP. As a migration's source
 * it is armed or held ({@link SourceHandover}); as its destination it resumes the guest itself
 * once the site's disks are active ({@link IncomingCommit}). Thread-safe; transport-free: the
 * gRPC service is an adapter over it.
 *
 * <p>A new runner re-attaches to the QEMUs a previous one left running ({@link #close()} leaves
 * them running): a live pidfile whose process names the VM's QMP socket on its command line,
 * then a new QMP session. It reads {@code query-migrate} again (a VM's migration status), arms
 * a source again from the {@link MigrationPlan} StartMigration left in its directory, and
 * resumes a destination whose migration completed meanwhile. What cannot be recovered: the
 * events QEMU sent while no runner listened are lost (the event times of a migration
 * before the re-attach stay 0), and a source found parked at {@code pre-switchover} stays
 * parked, held (see {@link SourceHandover#recover}). A QEMU that died meanwhile is listed as
 * exited, with the reason its runner recorded or else the last lines of its log.
 */
public final class QemuRunner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QemuRunner.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Duration QMP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration EXIT_PATIENCE = Duration.ofSeconds(5);
    private static final Duration DEFAULT_HANDOVER_DEADLINE = Duration.ofSeconds(5);
    /** In 7.2, query-migrate can say completed while total-time is still 0: ask again, this many times at most. */
    private static final int COMPLETED_QUERIES = 50;

    private final RunnerConfig config;
    private final SiteDisks disks;
    private final QmpCodec codec = new QmpCodec();
    private final MigrationPorts ports;
    private final QemuLauncher launcher;
    private final ExecutorService executor;
    private final Map<String, QemuVm> vms = new ConcurrentHashMap<>();
    private final Map<String, IncomingCommit> commits = new ConcurrentHashMap<>();
    private final Map<String, SourceHandover> sources = new ConcurrentHashMap<>();
    private final ScheduledExecutorService consolePoller;
    private final Set<String> starting = ConcurrentHashMap.newKeySet();

    /** Re-attaches to the QEMUs still running in the state directory. */
    public QemuRunner(RunnerConfig config, SiteDisks disks) throws IOException {
        this.config = requireNonNull(config, "config is null");
        this.disks = requireNonNull(disks, "disks is null");
        this.ports = new MigrationPorts(config.migrationPorts());
        this.launcher = new QemuLauncher(config, codec, QMP_TIMEOUT);
        this.executor = BoundedExecutors.fixed("vm-runner-" + config.site(), 2, 64);
        this.consolePoller = BoundedExecutors.scheduled("vm-console-" + config.site(), 1, 1024);
        Path root = config.stateDir().resolve("vms");
        Files.createDirectories(root);
        try (var dirs = Files.list(root)) {
            dirs.filter(Files::isDirectory).sorted().forEach(dir -> reattach(new VmFiles(dir)));
        }
    }

    /**
     * Starts a QEMU for {@code vm}. With {@code incoming} it waits for a migration on a free
     * migration port of this site ({@code VM_BUSY} when none is free) and is resumed by the
     * runner on completion. {@code TOOL_MISSING} when QEMU is not installed, {@code VM_BUSY}
     * when the VM runs here already.
     */
    public CompletableFuture<VmRuntime> start(VmDefinition vm, boolean incoming) {
        String name = vm.name();
        try {
            validate(vm);
            launcher.checkInstalled();
        } catch (HeliotropeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!starting.add(name)) {
            return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.VM_BUSY, "vm " + name + " is being started at " + config.site()));
        }
        QemuVm existing = vms.get(name);
        int port;
        try {
            if (existing != null && !existing.exited()) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, "vm " + name + " runs at " + config.site() + " already (pid " + existing.pid() + ")");
            }
            port = incoming ? ports.take(name) : -1;
        } catch (HeliotropeException e) {
            starting.remove(name);
            return CompletableFuture.failedFuture(e);
        }
        return BoundedExecutors.supplyAsync(() -> launch(vm, incoming, port), executor, "the VM runner of " + config.site())
                .thenCompose(QemuVm::runtime)
                .whenComplete((runtime, failure) -> {
                    starting.remove(name);
                    if (failure != null) {
                        ports.release(port, name);
                    }
                });
    }

    /** Quits the QEMU ({@code kill}: SIGKILL at once; else SIGKILL when {@code quit} is not obeyed within 5 s). */
    public CompletableFuture<VmRuntime> stop(String name, boolean kill) {
        return with(name, vm -> {
            if (vm.exited()) {
                return vm.runtime();
            }
            CompletableFuture<Void> gone = kill ? vm.kill(EXIT_PATIENCE) : vm.quit(EXIT_PATIENCE);
            return gone.thenCompose(ignored -> vm.runtime());
        });
    }

    public CompletableFuture<VmRuntime> get(String name) {
        return with(name, QemuVm::runtime);
    }

    public CompletableFuture<List<VmRuntime>> list() {
        List<CompletableFuture<VmRuntime>> runtimes = vms.values().stream().map(QemuVm::runtime).toList();
        return CompletableFuture.allOf(runtimes.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> runtimes.stream().map(CompletableFuture::join).sorted(Comparator.comparing(VmRuntime::name)).toList());
    }

    /**
     * At the source: arms the handover to {@code toSite} (or holds it, with {@code hold}),
     * records the plan for a runner that restarts, sets the capabilities (events, return-path,
     * pause-before-switchover) and sends {@code migrate} to the link in front of
     * {@code toSite}'s migration port {@code portIndex}. {@code VM_BUSY} while a migration of
     * the VM is in flight here.
     *
     * @param handoverDeadline how long the disks' handover may take (null or zero: 5 s)
     * @param maxBandwidth bytes per second for the RAM stream (0: QEMU's default)
     * @param hold park at {@code pre-switchover} until {@link #handOver} and {@link #continueMigration}
     */
    public CompletableFuture<VmRuntime> startMigration(String name, String toSite, int portIndex, Duration handoverDeadline, long maxBandwidth, boolean hold) {
        return with(name, vm -> {
            InetSocketAddress target = migrationTarget(toSite, portIndex);
            IncomingCommit commit = commits.get(name);
            SourceHandover current = sources.get(name);
            if (current != null && current.inFlight()) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, "vm " + name + " is migrating out of " + config.site() + " already");
            }
            if (commit != null && !commit.resumed()) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, "vm " + name + " has not been resumed since it migrated to " + config.site());
            }
            Duration deadline = handoverDeadline == null || handoverDeadline.isZero() ? DEFAULT_HANDOVER_DEADLINE : handoverDeadline;
            MigrationPlan plan = new MigrationPlan(toSite, deadline.toMillis(), hold);
            try {
                plan.write(vm.files().migrationRecord());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            SourceHandover source = SourceHandover.arm(vm, disks, plan);
            sources.put(name, source);
            log.info("{}: migrating to {} through {}{}", name, toSite, target, hold ? ", held at pre-switchover" : "");
            return vm.call(QmpCommands.MigrateSetCapabilities.on("events", "return-path", "pause-before-switchover"))
                    .thenCompose(ignored -> maxBandwidth > 0 ? vm.call(new QmpCommands.MigrateSetParameters(maxBandwidth)) : CompletableFuture.completedFuture(null))
                    .thenCompose(ignored -> vm.call(new QmpCommands.Migrate("tcp:" + hostPort(target.getHostString(), target.getPort()))))
                    .whenComplete((ignored, failure) -> {
                        if (failure != null) {
                            source.disarm();
                        }
                    })
                    .thenCompose(ignored -> vm.runtime());
        });
    }

    /**
     * At a source started with hold, parked at {@code pre-switchover}: hands every disk over
     * to the destination's site, as an armed source does by itself. The status has the
     * handover {@code DONE}, or {@code FAILED} with its error (the migration was cancelled and
     * the disks stay held). A repeated call answers as the first. {@code VM_BUSY} when the VM
     * is not parked so (not migrating out of here, not held, not yet at pre-switchover).
     */
    public CompletableFuture<MigrationStatus> handOver(String name) {
        return with(name, vm -> source(name).handOver().thenCompose(state -> queryMigration(name)));
    }

    /** At a source started with hold whose disks were handed over: {@code migrate-continue}. {@code VM_BUSY} otherwise. */
    public CompletableFuture<MigrationStatus> continueMigration(String name) {
        return with(name, vm -> source(name).continueMigration().thenCompose(ignored -> queryMigration(name)));
    }

    /**
     * Follows the VM's serial console here from {@code offset} of its console.log (negative:
     * that many bytes before its end, at a line's start), or with {@code fromLaunch} from
     * where its current QEMU began, into {@code sink}, until QEMU exits here or the console
     * is closed. {@code VM_NOT_FOUND} for a VM that has not run here.
     */
    public VmConsole console(String name, long offset, boolean fromLaunch, VmConsole.Sink sink) {
        try {
            QemuVm vm = known(name);
            VmConsole console = new VmConsole(vm, fromLaunch ? vm.launch().consoleStart() : offset, consolePoller, sink);
            console.start();
            return console;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code query-migrate} here, with the handover's state, the event times and QEMU's run
     * state; of a QEMU that exited, what the runner saw of it, in the state "exited".
     */
    public CompletableFuture<MigrationStatus> queryMigration(String name) {
        return with(name, vm -> {
            if (vm.exited()) {
                return CompletableFuture.completedFuture(MigrationStatuses.of(MigrationInfo.NONE, vm.migrationView(), VmRuntime.EXITED));
            }
            boolean source = vm.handoverState() != HandoverState.NONE;
            return queryMigrate(vm, source ? COMPLETED_QUERIES : 1)
                    .thenCombine(vm.runtime(), (info, runtime) -> MigrationStatuses.of(info, vm.migrationView(), runtime.state()));
        });
    }

    /** {@code migrate_cancel} at the source. */
    public CompletableFuture<VmRuntime> cancelMigration(String name) {
        return with(name, vm -> vm.call(QmpCommands.Action.MIGRATE_CANCEL).thenCompose(ignored -> vm.runtime()));
    }

    public CompletableFuture<VmRuntime> pause(String name) {
        return with(name, vm -> vm.call(QmpCommands.Action.STOP).thenCompose(ignored -> vm.runtime()));
    }

    /** {@code cont}: resumes a paused guest (a source whose migration was rolled back). */
    public CompletableFuture<VmRuntime> resume(String name) {
        return with(name, vm -> vm.call(QmpCommands.Action.CONT).thenCompose(ignored -> vm.runtime()));
    }

    /**
     * At a destination, before its commit point: kills the QEMU unless the runner resumed the
     * guest already, and says which happened. Exactly one of the two wins.
     */
    public CompletableFuture<AbortResult> abortIncoming(String name) {
        return with(name, vm -> {
            IncomingCommit commit = commits.get(name);
            if (commit == null) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, "vm " + name + " is no incoming migration at " + config.site());
            }
            return commit.abort();
        });
    }

    /**
     * The site's standby of {@code image} lapsed (no driver renewed it): every destination
     * waiting here with that disk that has not resumed never will; its QEMU is killed.
     */
    public void abortIncomingWith(String image) {
        commits.forEach((name, commit) -> {
            QemuVm vm = vms.get(name);
            if (vm != null && vm.launch().definition().disks().contains(image)) {
                commit.abort().thenAccept(result -> {
                    if (!result.resumed()) {
                        log.info("{}: the standby of {} lapsed: the incoming VM was stopped", name, image);
                    }
                });
            }
        });
    }

    /** Sends every event of the VM from now on to {@code watcher} (on QMP's reader: it must not block); run the result to stop. */
    public Runnable watch(String name, Consumer<VmEvent> watcher) {
        return known(name).watch(watcher);
    }

    /** Leaves every QEMU running and closes the connections to them. */
    @Override
    public void close() {
        vms.values().forEach(QemuVm::detach);
        try {
            BoundedExecutors.shutdown(consolePoller, EXIT_PATIENCE);
            BoundedExecutors.shutdown(executor, EXIT_PATIENCE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private QemuVm launch(VmDefinition definition, boolean incoming, int port) {
        try {
            QemuVm vm = launcher.launch(definition, incoming, port, disks.nbdAddress());
            vms.put(vm.name(), vm);
            commits.remove(vm.name());
            sources.remove(vm.name());
            if (incoming) {
                listenForMigration(vm, port);
            }
            return vm;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void listenForMigration(QemuVm vm, int port) {
        IncomingCommit commit = track(vm);
        commit.arm();
        launcher.await(vm.call(QmpCommands.MigrateSetCapabilities.on("events", "return-path", "late-block-activate"))
                .thenCompose(ignored -> vm.call(new QmpCommands.MigrateIncoming("tcp:" + hostPort(config.bindHost(), ports.port(port))))));
        log.info("{}: waiting for a migration on port {}", vm.name(), ports.port(port));
    }

    /** The destination's commit, and its migration port given back once the migration ends or the VM exits. */
    private IncomingCommit track(QemuVm vm) {
        IncomingCommit commit = new IncomingCommit(vm, disks, config.resumeDeadline(), EXIT_PATIENCE);
        commits.put(vm.name(), commit);
        int port = vm.launch().migrationPort();
        vm.watch(event -> {
            if (event.event().equals(VmEvent.EXITED) || Set.of("completed", "failed", "cancelled").contains(event.detail())) {
                ports.release(port, vm.name());
            }
        });
        return commit;
    }

    private void reattach(VmFiles files) {
        QemuVm vm = launcher.reattach(files);
        if (vm == null) {
            return;
        }
        vms.put(vm.name(), vm);
        if (vm.exited()) {
            return;
        }
        // Armed again before asking, so that no event after the answer is missed.
        SourceHandover source = vm.launch().incoming() ? null : rearm(vm);
        MigrationInfo info;
        try {
            info = launcher.await(vm.call(QmpCommands.QUERY_MIGRATE));
        } catch (HeliotropeException e) {
            log.warn("{}: re-attached, but query-migrate failed: {}", vm.name(), e.getMessage());
            return;
        }
        vm.migrationStatus(info.status());
        if (source != null) {
            log.info("{}: re-attached to a source: migration {}", vm.name(), info.status());
            source.recover(info.status());
        } else if (vm.launch().incoming()) {
            reattachDestination(vm, info);
        }
    }

    /** The source's handover as its last StartMigration planned it, or null when it never migrated. */
    private SourceHandover rearm(QemuVm vm) {
        Path file = vm.files().migrationRecord();
        if (!Files.exists(file)) {
            return null;
        }
        try {
            SourceHandover source = SourceHandover.arm(vm, disks, MigrationPlan.read(file));
            sources.put(vm.name(), source);
            return source;
        } catch (IOException e) {
            log.warn("{}: cannot read its migration plan: {}", vm.name(), e.getMessage());
            return null;
        }
    }

    /** A destination: what did it miss while no runner watched it? */
    private void reattachDestination(QemuVm vm, MigrationInfo info) {
        IncomingCommit commit = track(vm);
        commit.arm();
        QmpCommands.StatusInfo status = launcher.await(vm.call(QmpCommands.QUERY_STATUS));
        log.info("{}: re-attached to a destination: migration {}, {}", vm.name(), info.status(), status.status());
        if (status.running()) {
            commit.alreadyResumed();
            ports.release(vm.launch().migrationPort(), vm.name());
        } else if ("completed".equals(info.status())) {
            commit.activate();
        } else if (!Set.of("failed", "cancelled").contains(info.status()) && vm.launch().migrationPort() >= 0) {
            ports.hold(vm.launch().migrationPort(), vm.name());
        }
    }

    private CompletableFuture<MigrationInfo> queryMigrate(QemuVm vm, int attempts) {
        return vm.call(QmpCommands.QUERY_MIGRATE).thenCompose(info -> "completed".equals(info.status()) && info.totalTime() == 0 && attempts > 1
                ? queryMigrate(vm, attempts - 1)
                : CompletableFuture.completedFuture(info));
    }

    private InetSocketAddress migrationTarget(String toSite, int portIndex) {
        List<InetSocketAddress> links = config.peerMigrationAddresses().get(toSite);
        if (links == null) {
            throw new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "site " + config.site() + " has no migration link to site " + toSite);
        }
        if (portIndex < 0 || portIndex >= links.size()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "site " + toSite + " has migration ports 0 to " + (links.size() - 1) + ", not " + portIndex);
        }
        return links.get(portIndex);
    }

    private <T> CompletableFuture<T> with(String name, Function<QemuVm, CompletableFuture<T>> action) {
        try {
            return action.apply(known(name));
        } catch (HeliotropeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private SourceHandover source(String name) {
        SourceHandover source = sources.get(name);
        if (source == null) {
            throw new HeliotropeException(ErrorCode.VM_BUSY, "vm " + name + " is not migrating out of " + config.site());
        }
        return source;
    }

    private QemuVm known(String name) {
        QemuVm vm = vms.get(name);
        if (vm == null) {
            throw new HeliotropeException(ErrorCode.VM_NOT_FOUND, "vm " + name + " has not run at " + config.site());
        }
        return vm;
    }

    private static void validate(VmDefinition vm) {
        if (!NAME.matcher(vm.name()).matches()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "a VM name is 1 to 64 letters, digits, '.', '_' or '-', not '" + vm.name() + "'");
        }
        if (vm.memoryBytes() < (16 << 20) || vm.vcpus() < 1) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "vm " + vm.name() + " needs at least 16 MiB of memory and one vCPU");
        }
        if (!Set.of("tcg", "kvm").contains(vm.accel())) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "vm " + vm.name() + ": accel is tcg or kvm, not " + vm.accel());
        }
    }

    private static String hostPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
