package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
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
}
