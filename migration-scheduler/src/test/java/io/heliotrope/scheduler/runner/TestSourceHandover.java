package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.qmp.QmpCommands;
import io.heliotrope.scheduler.qmp.TestingQmpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSourceHandover {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final InetSocketAddress NBD = new InetSocketAddress("127.0.0.1", 1);

    @TempDir
    Path dir;

    @Test
    void handsEveryDiskOverAtPreSwitchoverThenContinues() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0", "d1"), false, TestingQmpServer::empty)) {
            SourceHandover.arm(qemu.vm, disks, plan(WAIT, false));
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
            SourceHandover.arm(qemu.vm, disks, plan(Duration.ofSeconds(30), false));
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
            SourceHandover.arm(qemu.vm, disks, plan(Duration.ofMillis(100), false));
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);

            assertThat(qemu.nextCommand()).isEqualTo("migrate_cancel");
            assertThat(qemu.vm.migrationView().handoverError()).isEqualTo("d0: not done within 100 ms");
        }
    }

    @Test
    void aMigrationThatFailsBeforeTheSwitchoverDisarms() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover.arm(qemu.vm, disks, plan(WAIT, false));
            qemu.server.event("MIGRATION", "{\"status\": \"failed\"}", 2, 0);
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 3, 0);
            qemu.vm.call(QmpCommands.QUERY_STATUS).exceptionally(failure -> null).get();

            assertThat(qemu.vm.handoverState()).isEqualTo(HandoverState.NONE);
            assertThat(disks.called()).isFalse();
        }
    }

    @Test
    void heldParksAtPreSwitchoverUntilHandOverAndThenUntilContinue() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0", "d1"), false, TestingQmpServer::empty)) {
            SourceHandover source = SourceHandover.arm(qemu.vm, disks, plan(WAIT, true));
            assertThat(qemu.vm.handoverState()).isEqualTo(HandoverState.HELD);
            assertThatThrownBy(source::handOver).hasMessage("vm vm1 is not parked at pre-switchover");
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);
            // Every event before this reply has been handled.
            qemu.vm.call(QmpCommands.QUERY_STATUS).get();
            assertThat(qemu.nextCommand()).isEqualTo("query-status");
            assertThat(disks.called()).isFalse();
            assertThatThrownBy(source::continueMigration).hasMessage("vm vm1 has not handed its disks over");

            assertThat(source.handOver().get()).isEqualTo(HandoverState.DONE);
            assertThat(List.of(disks.nextCall(WAIT), disks.nextCall(WAIT))).containsExactly("handover d0 to b", "handover d1 to b");
            assertThat(qemu.vm.migrationView().handover()).isEqualTo(HandoverState.DONE);
            assertThat(source.handOver().get()).isEqualTo(HandoverState.DONE);
            assertThat(disks.called()).isFalse();

            source.continueMigration().get();
            assertThat(qemu.server.nextCommand().toString()).isEqualTo("{\"execute\":\"migrate-continue\",\"arguments\":{\"state\":\"pre-switchover\"},\"id\":3}");
        }
    }

    @Test
    void aHeldHandoverThatFailsCancelsAndCannotContinue() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.STALE_LEASE, "the lease moved elsewhere")));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover source = SourceHandover.arm(qemu.vm, disks, plan(WAIT, true));
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);
            qemu.vm.call(QmpCommands.QUERY_STATUS).get();
            qemu.nextCommand();

            assertThat(source.handOver().get()).isEqualTo(HandoverState.FAILED);
            assertThat(qemu.nextCommand()).isEqualTo("migrate_cancel");
            assertThat(qemu.vm.migrationView().handoverError()).isEqualTo("d0: the lease moved elsewhere");
            assertThatThrownBy(source::continueMigration).hasMessage("vm vm1 has not handed its disks over");
        }
    }

    @Test
    void aHeldSourceWhoseQemuExitedHandsNothingOver() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover source = SourceHandover.arm(qemu.vm, disks, plan(WAIT, true));
            qemu.server.event("MIGRATION", "{\"status\": \"pre-switchover\"}", 2, 0);
            qemu.vm.kill(WAIT).get();

            assertThatThrownBy(source::handOver).hasMessage("vm vm1 exited while parked");
            assertThat(disks.called()).isFalse();
        }
    }

    @Test
    void anArmedSourceRefusesHandOverAndContinue() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover source = SourceHandover.arm(qemu.vm, disks, plan(WAIT, false));
            assertThatThrownBy(source::handOver).isInstanceOf(HeliotropeException.class)
                    .hasMessage("vm vm1 hands its disks over by itself (it was not started with hold)")
                    .matches(e -> ((HeliotropeException) e).code() == ErrorCode.VM_BUSY);
            assertThatThrownBy(source::continueMigration).hasMessage("vm vm1 continues by itself (it was not started with hold)");
        }
    }

    @Test
    void anArmedSourceFoundParkedAfterARestartStaysParkedUntilHandOver() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover source = SourceHandover.arm(qemu.vm, disks, plan(WAIT, false));
            source.recover("pre-switchover");
            assertThat(qemu.vm.handoverState()).isEqualTo(HandoverState.HELD);
            assertThat(disks.called()).isFalse();

            assertThat(source.handOver().get()).isEqualTo(HandoverState.DONE);
            assertThat(disks.nextCall(WAIT)).isEqualTo("handover d0 to b");
        }
    }

    @Test
    void aSourceFoundPastTheSwitchoverHandedOver() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(NBD, image -> CompletableFuture.completedFuture(null));
        try (TestingQemu qemu = new TestingQemu(dir, List.of("d0"), false, TestingQmpServer::empty)) {
            SourceHandover source = SourceHandover.arm(qemu.vm, disks, plan(WAIT, false));
            source.recover("completed");
            assertThat(qemu.vm.handoverState()).isEqualTo(HandoverState.DONE);
            assertThat(source.inFlight()).isFalse();
        }
    }

    private static MigrationPlan plan(Duration deadline, boolean hold) {
        return new MigrationPlan("b", deadline.toMillis(), hold);
    }
}
