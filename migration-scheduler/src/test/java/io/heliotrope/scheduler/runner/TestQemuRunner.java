package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.TestingQmpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class TestQemuRunner {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final TestingSiteDisks disks = new TestingSiteDisks(new InetSocketAddress("127.0.0.1", 1), image -> CompletableFuture.completedFuture(null));

    @TempDir
    Path dir;

    @Test
    void namesThePackageWhenQemuIsMissing() throws Exception {
        try (QemuRunner runner = runner("no-such-qemu-system-x86_64")) {
            assertThat(runner.start(vm("vm1"), false)).failsWithin(WAIT).withThrowableOfType(Exception.class)
                    .havingCause().isInstanceOf(HeliotropeException.class)
                    .withMessage("no-such-qemu-system-x86_64 is not installed: apt-get install qemu-system-x86")
                    .matches(e -> ((HeliotropeException) e).code() == ErrorCode.TOOL_MISSING);
        }
    }

    @Test
    void refusesUnknownVmsBadNamesAndUnknownPeers() throws Exception {
        try (QemuRunner runner = runner(null)) {
            assertThat(runner.get("vm1")).failsWithin(WAIT).withThrowableOfType(Exception.class)
                    .havingCause().withMessage("vm vm1 has not run at a");
            assertThat(runner.start(vm("../x"), false)).failsWithin(WAIT).withThrowableOfType(Exception.class)
                    .havingCause().withMessage("a VM name is 1 to 64 letters, digits, '.', '_' or '-', not '../x'");
            assertThat(runner.list().get()).isEmpty();
        }
    }

    @Test
    void defaultsOfTheConfiguration() {
        RunnerConfig config = new RunnerConfig("a", dir, null, null, null, null, null);
        assertThat(config.qemuBinary()).isEqualTo("qemu-system-x86_64");
        assertThat(config.bindHost()).isEqualTo("127.0.0.1");
        assertThat(config.migrationPorts()).isEmpty();
        assertThat(config.peerMigrationAddresses()).isEmpty();
        assertThat(config.resumeDeadline()).isEqualTo(Duration.ofSeconds(10));
    }

    private QemuRunner runner(String qemu) throws Exception {
        return new QemuRunner(new RunnerConfig("a", dir, qemu, null, List.of(), Map.of(), null), disks);
    }

    private static VmDefinition vm(String name) {
        return new VmDefinition(name, 64L << 20, 1, List.of(), null, null, null, null);
    }

    @Test
    void reArmsASourceMidMigrationAfterARestart() throws Exception {
        try (FakeQemu qemu = new FakeQemu(new MigrationPlan("b", 5000, false), "active");
                QemuRunner runner = runner(null)) {
            VmRuntime found = runner.get("vm1").get();
            assertThat(found.state()).isEqualTo("paused");
            assertThat(found.migrationStatus()).isEqualTo("active");

            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);
            assertThat(disks.nextCall(WAIT)).isEqualTo("handover d0 to b");
            assertThat(qemu.commandsUntil("migrate-continue")).containsExactly("qmp_capabilities", "query-migrate", "query-status", "migrate-continue");
            assertThat(runner.get("vm1").get().migrationStatus()).isEqualTo("pre-switchover");
        }
    }

    @Test
    void aSourceFoundParkedIsHeldUntilHandOverAndContinueMigration() throws Exception {
        try (FakeQemu qemu = new FakeQemu(new MigrationPlan("b", 5000, true), "pre-switchover");
                QemuRunner runner = runner(null)) {
            assertThat(runner.queryMigration("vm1").get().handover()).isEqualTo(HandoverState.HELD);
            assertThat(runner.continueMigration("vm1")).failsWithin(WAIT).withThrowableOfType(Exception.class)
                    .havingCause().withMessage("vm vm1 has not handed its disks over");

            MigrationStatus handed = runner.handOver("vm1").get();
            assertThat(handed.handover()).isEqualTo(HandoverState.DONE);
            assertThat(handed.status()).isEqualTo("pre-switchover");
            assertThat(disks.nextCall(WAIT)).isEqualTo("handover d0 to b");
            runner.continueMigration("vm1").get();
            assertThat(qemu.commandsUntil("migrate-continue")).endsWith("query-migrate", "query-status", "migrate-continue");

            assertThat(runner.handOver("vm2")).failsWithin(WAIT).withThrowableOfType(Exception.class)
                    .havingCause().withMessage("vm vm2 has not run at a");
        }
    }

    @Test
    void aQemuThatDiedWhileNoRunnerWatchedIsListedAsExited() throws Exception {
        VmFiles files = VmFiles.of(dir, "vm1");
        Files.createDirectories(files.dir());
        new LaunchRecord(vm("vm1"), false, -1, 0, 0).write(files.launchRecord());
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Files.writeString(files.pidfile(), Long.toString(gone.pid()));
        Files.writeString(files.qemuLog(), "qemu-system-x86_64: terminating on signal 15 from pid 1\n");
        try (QemuRunner runner = runner(null)) {
            VmRuntime found = runner.get("vm1").get();
            assertThat(found.state()).isEqualTo(VmRuntime.EXITED);
            assertThat(found.exitReason()).isEqualTo("exited while no runner watched it: qemu-system-x86_64: terminating on signal 15 from pid 1");
            assertThat(runner.handOver("vm1")).failsWithin(WAIT).withThrowableOfType(Exception.class)
                    .havingCause().withMessage("vm vm1 is not migrating out of a");
        }
    }

    /**
     * What a runner that restarts finds of a source QEMU it left migrating: its files, a live
     * process naming its QMP socket (a shell waiting on its input) and a fake QMP server.
     */
    private final class FakeQemu implements AutoCloseable {
        final TestingQmpServer server;
        final Process process;

        FakeQemu(MigrationPlan plan, String migrationStatus) throws Exception {
            VmFiles files = VmFiles.of(dir, "vm1");
            Files.createDirectories(files.dir());
            new LaunchRecord(new VmDefinition("vm1", 64L << 20, 1, List.of("d0"), null, null, null, null), false, -1, 0, 0).write(files.launchRecord());
            plan.write(files.migrationRecord());
            process = new ProcessBuilder("sh", "-c", "read line", files.qmpSocket().toString()).start();
            Files.writeString(files.pidfile(), Long.toString(process.pid()));
            server = new TestingQmpServer(files.qmpSocket(), command -> switch (command.get("execute").asText()) {
                case "query-migrate" -> "{\"return\": {\"status\": \"" + migrationStatus + "\"}}";
                case "query-status" -> "{\"return\": {\"running\": false, \"status\": \"paused\"}}";
                default -> TestingQmpServer.empty(command);
            });
        }

        /** The commands received, up to {@code last}. */
        List<String> commandsUntil(String last) throws InterruptedException {
            List<String> commands = new ArrayList<>();
            do {
                commands.add(server.nextCommand().get("execute").asText());
            } while (!commands.get(commands.size() - 1).equals(last));
            return commands;
        }

        @Override
        public void close() throws IOException {
            process.destroyForcibly();
            server.close();
        }
    }
}
