package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.TestingQmpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class TestSourceHandover {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final InetSocketAddress NBD = new InetSocketAddress("127.0.0.1", 1);

    @TempDir
    Path dir;

    @Test
    void handsEveryDiskOverAtPreSwitchoverThenContinues() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0", "d1"), false, TestingQmpServer::empty)) {
            SourceHandover.arm(qemu.vm, disks, "b", WAIT);
            assertThat(qemu.vm.handoverState()).isEqualTo(HandoverState.ARMED);
            qemu.server.event("MIGRATION", "{\"status\": \"active\"}", 1, 0);
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);

            assertThat(qemu.server.nextCommand().toString()).isEqualTo("{\"execute\":\"migrate-continue\",\"arguments\":{\"state\":\"pre-switchover\"},\"id\":2}");
            assertThat(List.of(disks.nextCall(WAIT), disks.nextCall(WAIT))).containsExactly("handover d0 to b", "handover d1 to b");
            assertThat(qemu.vm.migrationView().handover()).isEqualTo(HandoverState.DONE);
            assertThat(qemu.vm.migrationView().times().preSwitchover()).isEqualTo(2_000_000);
        }
    }

    @Test
    void cancelsAtOnceWhenOneHandoverFails() throws Exception {
        // d0 never completes: the failure of d1 alone must cancel.
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> image.equals("d1")
                ? CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.STALE_LEASE, "the lease moved elsewhere"))
                : new CompletableFuture<>());
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0", "d1"), false, TestingQmpServer::empty)) {
            SourceHandover.arm(qemu.vm, disks, "b", Duration.ofSeconds(30));
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);

            assertThat(qemu.nextCommand()).isEqualTo("migrate_cancel");
            assertThat(qemu.vm.migrationView().handover()).isEqualTo(HandoverState.FAILED);
            assertThat(qemu.vm.migrationView().handoverError()).isEqualTo("d1: the lease moved elsewhere");
        }
    }

    @Test
    void cancelsWhenAHandoverMissesItsDeadline() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> new CompletableFuture<>());
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover.arm(qemu.vm, disks, "b", Duration.ofMillis(100));
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);

            assertThat(qemu.nextCommand()).isEqualTo("migrate_cancel");
            assertThat(qemu.vm.migrationView().handoverError()).isEqualTo("d0: not done within 100 ms");
        }
    }

    @Test
    void aMigrationThatFailsBeforeTheSwitchoverDisarms() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover.arm(qemu.vm, disks, "b", WAIT);
            qemu.server.event("MIGRATION", "{\"status\": \"failed\"}", 2, 0);
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 3, 0);
            qemu.vm.call(io.heliotrope.scheduler.qmp.QmpCommands.QUERY_STATUS).exceptionally(failure -> null).get();

            assertThat(qemu.vm.handoverState()).isEqualTo(HandoverState.NONE);
            assertThat(disks.called()).isFalse();
        }
    }
}
