package io.heliotrope.scheduler.runner;

import com.fasterxml.jackson.databind.JsonNode;
import io.heliotrope.scheduler.qmp.TestingQmpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class TestIncomingCommit {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final TestingSiteDisks disks = new TestingSiteDisks(new InetSocketAddress("127.0.0.1", 1), image -> CompletableFuture.completedFuture(null));

    @Test
    void resumesOnceEveryDiskIsActiveAndThenAnAbortSaysSo() throws Exception {
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0", "d1"), true, TestIncomingCommit::resumeOnCont)) {
            IncomingCommit commit = armed(qemu, WAIT);
            qemu.server.event("MIGRATION", "{\"status\": \"completed\"}", 5, 0);
            assertThat(List.of(disks.nextCall(WAIT), disks.nextCall(WAIT))).containsExactly("active d0", "active d1");
            disks.activate("d0");
            assertThat(commit.resumed()).isFalse();
            disks.activate("d1");

            assertThat(qemu.nextCommand()).isEqualTo("cont");
            assertThat(commit.abort().get()).isEqualTo(new AbortResult(true, 6_000_007));
            assertThat(commit.resumed()).isTrue();
            assertThat(qemu.process.isAlive()).isTrue();
        }
    }

    @Test
    void anAbortBeforeTheDisksAreActiveKillsItAndItNeverResumes() throws Exception {
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), true, TestIncomingCommit::resumeOnCont)) {
            IncomingCommit commit = armed(qemu, WAIT);
            qemu.server.event("MIGRATION", "{\"status\": \"completed\"}", 5, 0);
            disks.nextCall(WAIT);

            assertThat(commit.abort().get()).isEqualTo(new AbortResult(false, 0));
            disks.activate("d0");
            assertThat(qemu.process.isAlive()).isFalse();
            assertThat(qemu.vm.runtime().get().exitReason()).isEqualTo("killed");
            assertThat(commit.resumed()).isFalse();
        }
    }

    @Test
    void aDiskNotActiveInTimeLeavesTheGuestPausedWithTheReason() throws Exception {
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), true, TestIncomingCommit::resumeOnCont)) {
            IncomingCommit commit = armed(qemu, Duration.ofMillis(100));
            TestingEventLog events = new TestingEventLog();
            qemu.vm.watch(events);
            qemu.server.event("MIGRATION", "{\"status\": \"completed\"}", 5, 0);

            String reason = "not resumed: disk(s) d0 not active here within 100 ms";
            events.await(VmEvent.NOT_RESUMED, reason, WAIT);
            assertThat(qemu.vm.migrationView().error()).isEqualTo(reason);
            disks.activate("d0");
            assertThat(commit.abort().get()).isEqualTo(new AbortResult(false, 0));
        }
    }

    private IncomingCommit armed(TestingQemu qemu, Duration deadline) {
        IncomingCommit commit = new IncomingCommit(qemu.vm, disks, deadline, WAIT);
        commit.arm();
        return commit;
    }

    /** As QEMU does: RESUME goes out before cont's reply. */
    private static String resumeOnCont(JsonNode command) {
        return command.get("execute").asText().equals("cont")
                ? "{\"timestamp\": {\"seconds\": 6, \"microseconds\": 7}, \"event\": \"RESUME\"}\r\n{\"return\": {}}"
                : TestingQmpServer.empty(command);
    }
}
