package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real QEMUs (TCG, no guest: SeaBIOS waits for a boot device) run by two runners on loopback, with fake site disks. */
class QemuRunnerIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** TCG boots a kernel in about 10 s on a loaded machine. */
    private static final Duration BOOT = Duration.ofSeconds(120);
    private static final String DISK = "disk0";

    @TempDir
    Path dir;

    @Test
    void startsStopsAndReattachesAfterTheRunnerRestarts() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(new InetSocketAddress("127.0.0.1", 1), image -> CompletableFuture.completedFuture(null));
        VmRuntime started;
        try (QemuRunner runner = new QemuRunner(config("a", List.of(), Map.of()), disks)) {
            started = runner.start(vm("vm1", List.of()), false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(started.state()).isEqualTo("running");
            assertThat(Files.exists(started.consoleLog())).isTrue();
            VmRuntime killed = runner.start(vm("vm2", List.of()), false).thenCompose(vm -> runner.stop("vm2", true)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(killed.state()).isEqualTo(VmRuntime.EXITED);
            assertThat(killed.exitReason()).isEqualTo("killed");
        }
        assertThat(ProcessHandle.of(started.pid()).map(ProcessHandle::isAlive)).contains(true);

        try (QemuRunner runner = new QemuRunner(config("a", List.of(), Map.of()), disks)) {
            assertThat(runner.list().get()).extracting(VmRuntime::name, VmRuntime::state, VmRuntime::pid, VmRuntime::exitReason)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("vm1", "running", started.pid(), ""),
                            org.assertj.core.groups.Tuple.tuple("vm2", VmRuntime.EXITED, runner.get("vm2").get().pid(), "killed"));
            assertThat(runner.start(vm("vm1", List.of()), false)).failsWithin(WAIT).withThrowableOfType(Exception.class)
                    .havingCause().isInstanceOf(HeliotropeException.class)
                    .withMessage("vm vm1 runs at a already (pid " + started.pid() + ")");
            VmRuntime stopped = runner.stop("vm1", false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(stopped.state()).isEqualTo(VmRuntime.EXITED);
            assertThat(stopped.exitReason()).isEqualTo("quit");
        }
        assertThat(ProcessHandle.of(started.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void migratesWithTheHandoverAtPreSwitchoverAndTheResumeOnceTheDisksAreActive() throws Exception {
        try (TestingNbdkit nbd = new TestingNbdkit(dir, "64M")) {
            AtomicReference<List<VmEvent>> atHandover = new AtomicReference<>();
            TestingEventLog source = new TestingEventLog();
            TestingSiteDisks disksA = new TestingSiteDisks(nbd.address(), image -> {
                atHandover.set(source.events());
                return CompletableFuture.completedFuture(null);
            });
            TestingSiteDisks disksB = new TestingSiteDisks(nbd.address(), image -> CompletableFuture.failedFuture(new AssertionError("no handover at the destination")));
            int port = TestingNbdkit.freePort();
            try (QemuRunner a = migratingTo(port, disksA);
                    QemuRunner b = incomingOn(port, disksB)) {
                a.start(vm("vm1", List.of(DISK)), false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                a.watch("vm1", source);
                VmRuntime incoming = b.start(vm("vm1", List.of(DISK)), true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(incoming.state()).isEqualTo("inmigrate");
                assertThat(incoming.migrationPort()).isZero();
                TestingEventLog destination = new TestingEventLog();
                b.watch("vm1", destination);

                a.startMigration("vm1", "b", 0, Duration.ofSeconds(5), 0, false).get(WAIT.toSeconds(), TimeUnit.SECONDS);

                assertThat(disksA.nextCall(WAIT)).isEqualTo("handover disk0 to b");
                assertThat(atHandover.get()).extracting(VmEvent::detail).contains("pre-switchover").doesNotContain("device", "completed");
                assertThat(disksB.nextCall(WAIT)).isEqualTo("active disk0");
                destination.await("MIGRATION", "completed", WAIT);
                assertThat(b.get("vm1").get().state()).isEqualTo("paused");
                assertThat(destination.find("RESUME", "")).isEmpty();

                disksB.activate(DISK);
                destination.await(VmEvent.RESUMED_BY_RUNNER, "", WAIT);
                assertThat(b.get("vm1").get().state()).isEqualTo("running");
                source.await("MIGRATION", "completed", WAIT);
                assertThat(a.get("vm1").get().state()).isEqualTo("postmigrate");

                MigrationStatus out = a.queryMigration("vm1").get();
                assertThat(out.status()).isEqualTo("completed");
                assertThat(out.handover()).isEqualTo(HandoverState.DONE);
                assertThat(out.totalTimeMillis()).isPositive();
                MigrationTimes src = out.times();
                assertThat(src.stop()).isPositive().isLessThanOrEqualTo(src.preSwitchover());
                assertThat(src.preSwitchover()).isLessThanOrEqualTo(src.device());
                MigrationTimes dst = b.queryMigration("vm1").get().times();
                assertThat(dst.completed()).isPositive().isLessThanOrEqualTo(dst.resume());
                assertThat(dst.resume()).isGreaterThan(src.stop());
                assertThat(b.abortIncoming("vm1").get()).isEqualTo(new AbortResult(true, dst.resume()));
                assertThat(b.get("vm1").get().state()).isEqualTo("running");

                assertThat(a.stop("vm1", false).get().exitReason()).isEqualTo("quit");
                assertThat(b.stop("vm1", false).get().exitReason()).isEqualTo("quit");
            }
        }
    }

    @Test
    void aFailedHandoverCancelsTheMigrationAndTheSourceRunsOn() throws Exception {
        try (TestingNbdkit nbd = new TestingNbdkit(dir, "64M")) {
            TestingSiteDisks disksA = new TestingSiteDisks(nbd.address(),
                    image -> CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "the controller did not answer")));
            TestingSiteDisks disksB = new TestingSiteDisks(nbd.address(), image -> CompletableFuture.completedFuture(null));
            int port = TestingNbdkit.freePort();
            try (QemuRunner a = migratingTo(port, disksA);
                    QemuRunner b = incomingOn(port, disksB)) {
                TestingEventLog source = new TestingEventLog();
                TestingEventLog destination = new TestingEventLog();
                startBoth(a, source, b, destination);

                a.startMigration("vm1", "b", 0, Duration.ofSeconds(5), 0, false).get(WAIT.toSeconds(), TimeUnit.SECONDS);

                source.await("MIGRATION", "cancelled", WAIT);
                source.await("RESUME", "", WAIT);
                MigrationStatus out = a.queryMigration("vm1").get();
                assertThat(out.handover()).isEqualTo(HandoverState.FAILED);
                assertThat(out.handoverError()).isEqualTo("disk0: the controller did not answer");
                assertThat(out.vmState()).isEqualTo("running");
                // The destination's load fails when the stream is cut, and QEMU 7.2 exits then.
                assertThat(destination.await(VmEvent.EXITED, null, WAIT).detail()).startsWith("crashed: ").contains("load of migration failed");
                assertThat(b.abortIncoming("vm1").get()).isEqualTo(new AbortResult(false, 0));
                assertThat(b.get("vm1").get().state()).isEqualTo(VmRuntime.EXITED);
                assertThat(disksB.called()).isFalse();
                assertThat(a.stop("vm1", false).get().exitReason()).isEqualTo("quit");
            }
        }
    }

    @Test
    void aHeldMigrationWaitsAtPreSwitchoverForHandOverAndThenForContinue() throws Exception {
        try (TestingNbdkit nbd = new TestingNbdkit(dir, "64M")) {
            TestingSiteDisks disksA = new TestingSiteDisks(nbd.address(), image -> CompletableFuture.completedFuture(null));
            TestingSiteDisks disksB = new TestingSiteDisks(nbd.address(), image -> CompletableFuture.failedFuture(new AssertionError("no handover at the destination")));
            int port = TestingNbdkit.freePort();
            try (QemuRunner a = migratingTo(port, disksA);
                    QemuRunner b = incomingOn(port, disksB)) {
                TestingEventLog source = new TestingEventLog();
                TestingEventLog destination = new TestingEventLog();
                startBoth(a, source, b, destination);

                a.startMigration("vm1", "b", 0, Duration.ofSeconds(5), 0, true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                source.await("MIGRATION", "pre-switchover", WAIT);
                MigrationStatus parked = a.queryMigration("vm1").get();
                assertThat(parked.status()).isEqualTo("pre-switchover");
                assertThat(parked.handover()).isEqualTo(HandoverState.HELD);
                assertThat(a.get("vm1").get().migrationStatus()).isEqualTo("pre-switchover");
                assertThat(disksA.called()).isFalse();
                assertThat(a.continueMigration("vm1")).failsWithin(WAIT).withThrowableOfType(Exception.class)
                        .havingCause().withMessage("vm vm1 has not handed its disks over");

                MigrationStatus handed = a.handOver("vm1").get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(handed.handover()).isEqualTo(HandoverState.DONE);
                assertThat(handed.status()).isEqualTo("pre-switchover");
                assertThat(disksA.nextCall(WAIT)).isEqualTo("handover disk0 to b");
                assertThat(destination.find("MIGRATION", "completed")).isEmpty();

                a.continueMigration("vm1").get(WAIT.toSeconds(), TimeUnit.SECONDS);
                source.await("MIGRATION", "completed", WAIT);
                assertThat(disksB.nextCall(WAIT)).isEqualTo("active disk0");
                disksB.activate(DISK);
                destination.await(VmEvent.RESUMED_BY_RUNNER, "", WAIT);
                MigrationTimes src = a.queryMigration("vm1").get().times();
                assertThat(src.preSwitchover()).isPositive().isLessThan(src.device());
                assertThat(a.get("vm1").get().migrationStatus()).isEqualTo("completed");

                assertThat(a.stop("vm1", false).get().exitReason()).isEqualTo("quit");
                assertThat(b.stop("vm1", false).get().exitReason()).isEqualTo("quit");
            }
        }
    }

    @Test
    void theConsoleFollowsTheGuestTakesInputAndGoesOnAfterTheRunnerRestarts() throws Exception {
        Optional<TestingConsoleGuest> guest = TestingConsoleGuest.build(dir, "vm1");
        assumeTrue(guest.isPresent(), "no kernel in /boot or no static busybox");
        TestingSiteDisks disks = new TestingSiteDisks(new InetSocketAddress("127.0.0.1", 1), image -> CompletableFuture.completedFuture(null));
        try (QemuRunner runner = new QemuRunner(config("a", List.of(), Map.of()), disks)) {
            runner.start(guest.get().definition(), false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            TestingConsoleSink sink = new TestingConsoleSink();
            VmConsole console = runner.console("vm1", 0, false, sink);
            sink.await(text -> text.contains(TestingConsoleGuest.READY), BOOT);
            console.type("hello\n".getBytes(StandardCharsets.UTF_8));
            sink.await(text -> text.contains("got: hello"), WAIT);
        }

        try (QemuRunner runner = new QemuRunner(config("a", List.of(), Map.of()), disks)) {
            VmRuntime found = runner.get("vm1").get();
            assertThat(found.state()).isEqualTo("running");
            assertThat(found.migrationStatus()).isEqualTo(VmRuntime.NO_MIGRATION);
            TestingConsoleSink sink = new TestingConsoleSink();
            VmConsole console = runner.console("vm1", -12, false, sink);
            sink.await(text -> text.equals("got: hello\n") || text.equals("got: hello\r\n"), WAIT);
            console.type("again\n".getBytes(StandardCharsets.UTF_8));
            sink.await(text -> text.contains("got: again"), WAIT);

            runner.stop("vm1", false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(sink.awaitEnd(WAIT)).isEqualTo("quit");
        }
    }

    /** Kills what a failed test left running: a new runner finds it by its pidfile and QMP socket. */
    @AfterEach
    void killLeftovers() throws Exception {
        TestingSiteDisks none = new TestingSiteDisks(new InetSocketAddress("127.0.0.1", 1), image -> CompletableFuture.completedFuture(null));
        for (String site : List.of("a", "b")) {
            try (QemuRunner runner = new QemuRunner(config(site, List.of(), Map.of()), none)) {
                for (VmRuntime vm : runner.list().get()) {
                    if (!vm.state().equals(VmRuntime.EXITED)) {
                        runner.stop(vm.name(), true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    }
                }
            }
        }
    }

    /** Site a's runner, with a migration link to site b's port. */
    private QemuRunner migratingTo(int port, SiteDisks disks) throws Exception {
        return new QemuRunner(config("a", List.of(), Map.of("b", List.of(new InetSocketAddress("127.0.0.1", port)))), disks);
    }

    /** Site b's runner, taking migrations on {@code port}. */
    private QemuRunner incomingOn(int port, SiteDisks disks) throws Exception {
        return new QemuRunner(config("b", List.of(port), Map.of()), disks);
    }

    /** vm1 running at a, and incoming at b, each watched from then on. */
    private static void startBoth(QemuRunner a, TestingEventLog source, QemuRunner b, TestingEventLog destination) throws Exception {
        a.start(vm("vm1", List.of(DISK)), false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        a.watch("vm1", source);
        b.start(vm("vm1", List.of(DISK)), true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        b.watch("vm1", destination);
    }

    private RunnerConfig config(String site, List<Integer> ports, Map<String, List<InetSocketAddress>> peers) {
        return new RunnerConfig(site, dir.resolve(site), null, null, ports, peers, Duration.ofSeconds(10));
    }

    private static VmDefinition vm(String name, List<String> disks) {
        return new VmDefinition(name, 64L << 20, 1, disks, null, null, null, null);
    }
}
