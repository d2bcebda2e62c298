package io.heliotrope.controller.lease;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.metadata.Flushed;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.LEASE_TTL;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

/** The controller's side of the sync mode's recovery: sync sites recorded with the lease, a recovery owed after a dead holding, the recovery flush. */
@ExtendWith(ZooKeeperExtension.class)
class TestSyncRecovery {
    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private TestingController controller;
    private ControllerService service;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "vm", "a", "b", "c", "d");
        service = controller.service();
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void onlyTheLiveHolderRecordsSyncSitesEachSetOnce() {
        Lease lease = controller.openForWrite("vm", "a");
        Lease advanced = await(service.advanceEpoch("vm", "a", lease.epoch()));

        // Any epoch of the holding will do, as for a flush's versions.
        await(service.recordSyncSites("vm", "a", lease.epoch(), List.of("c", "b")));
        await(service.recordSyncSites("vm", "a", advanced.epoch(), List.of("b", "c")));
        Lease recorded = await(service.recordSyncSites("vm", "a", advanced.epoch(), List.of("d")));

        assertThat(recorded.syncSites()).containsExactly(List.of("b", "c"), List.of("d"));
        assertThat(await(service.getLease("vm")).syncSites()).containsExactly(List.of("b", "c"), List.of("d"));
        assertRefused(() -> await(service.recordSyncSites("vm", "b", advanced.epoch(), List.of("c"))), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 2 of site b is stale: fenced by epoch 2 at site a");
        assertRefused(() -> await(service.recordSyncSites("vm", "a", 7, List.of("c"))), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 7 of site a is stale: fenced by epoch 2 at site a");
        assertRefused(() -> await(service.recordSyncSites("vm", "a", 2, List.of("a", "c"))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': site a may record only other sites as taking its sync copies, and at least one, not [a, c]");
        assertRefused(() -> await(service.recordSyncSites("vm", "a", 2, List.of("mars"))), ErrorCode.SITE_NOT_FOUND,
                "site 'mars' is not registered");

        await(service.breakLease("vm", "a", 2));
        assertRefused(() -> await(service.recordSyncSites("vm", "a", 1, List.of("c"))), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 2 of site a is stale: broken by an operator 0.0 s ago");
    }

    @Test
    void aHoldingThatEndsWithAFinalFlushOwesNothing() {
        Lease lease = controller.openForWrite("vm", "a");
        await(service.recordSyncSites("vm", "a", lease.epoch(), List.of("b")));

        Flushed released = await(service.flush(new Flush("vm", "a", lease.epoch(), true, "", BlockEntries.EMPTY)));

        assertThat(released.lease().syncSites()).isEmpty();
        Lease next = controller.openForWrite("vm", "c");
        assertThat(next.recovery()).isEqualTo(SyncRecovery.NONE);
        await(service.recordSyncSites("vm", "c", next.epoch(), List.of("d")));
        await(service.prepare("vm", "c", "b"));
        Lease moved = await(service.flush(new Flush("vm", "c", next.epoch(), false, "b", BlockEntries.EMPTY))).lease();
        assertThat(moved.holder()).isEqualTo("b");
        assertThat(moved.syncSites()).isEmpty();
        assertThat(moved.recovery().pending()).isFalse();
    }

    @Test
    void aDeadHoldingLeavesItsSyncSitesToTheNextOpenerUntilARecoveryFlush() {
        Lease a = controller.openForWrite("vm", "a");
        Lease advanced = await(service.advanceEpoch("vm", "a", a.epoch()));
        await(service.recordSyncSites("vm", "a", a.epoch(), List.of("b")));
        await(service.recordSyncSites("vm", "a", advanced.epoch(), List.of("c")));
        controller.flush("vm", "a", advanced.epoch(), BlockEntries.builder().add(3, Version.compose(1, 1), "a").build());
        clock.advance(LEASE_TTL);

        Lease c = await(service.openImage("vm", "c", OpenMode.WRITE, 0, Duration.ZERO)).lease();
        SyncRecovery owed = new SyncRecovery(List.of("a"), 1, 2, List.of(List.of("b"), List.of("c")));
        assertThat(c.recovery()).isEqualTo(owed);
        // A holder that gives up before recovering leaves the recovery to the next one.
        await(service.closeImage("vm", "c", c.epoch()));
        Lease d = controller.openForWrite("vm", "d");
        assertThat(d.recovery()).isEqualTo(owed);

        assertRefused(() -> controller.flush("vm", "d", d.epoch(), BlockEntries.builder().add(5, Version.compose(2, 4), "b").build()),
                ErrorCode.INVALID_ARGUMENT, "image 'vm': site d flushed blocks held by site b; a flush names its own site or a zero marker");
        assertRefused(() -> recover(d, BlockEntries.builder().add(5, Version.compose(2, 4), "a").build()), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': a recovery flush names site a as a holder; it may name the sites that took sync copies of the dead holdings, [b, c],"
                        + " or a zero marker");
        assertRefused(() -> recover(d, BlockEntries.builder().add(5, Version.compose(4, 1), "b").build()), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': block 5 has version 4.1; versions must be non-zero and of epochs 1 to 2, those of the dead holdings being recovered");
        assertRefused(() -> await(service.flush(new Flush("vm", "d", d.epoch(), true, "", BlockEntries.EMPTY, true))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': a recovery flush can neither release the lease nor move it");

        BlockEntries recovered = BlockEntries.builder().add(3, Version.compose(2, 7), "c").add(5, Version.compose(1, 4), "b").addZero(6, Version.compose(2, 1)).build();
        Flushed flushed = recover(d, recovered);

        assertThat(flushed.lease().recovery()).isEqualTo(SyncRecovery.NONE);
        assertThat(await(service.getLease("vm")).recovery().pending()).isFalse();
        assertThat(await(service.openImage("vm", "b", OpenMode.READ, 0, Duration.ZERO)).changes().deltas())
                .containsExactly(BlockEntries.builder().add(3, Version.compose(1, 1), "a").build(), recovered);
        assertRefused(() -> recover(d, BlockEntries.EMPTY), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': site d sent a recovery flush, but no recovery is pending");
    }

    @Test
    void aHolderThatDiesBeforeItRecoversAddsItsOwnHoldingToTheRecovery() {
        Lease a = controller.openForWrite("vm", "a");
        await(service.recordSyncSites("vm", "a", a.epoch(), List.of("b")));
        clock.advance(LEASE_TTL);
        Lease c = controller.openForWrite("vm", "c");
        // Not the usual course (a holder records once it serves, after recovering), but the rule holds for it too.
        await(service.recordSyncSites("vm", "c", c.epoch(), List.of("d")));
        clock.advance(LEASE_TTL);

        Lease d = controller.openForWrite("vm", "d");

        assertThat(d.recovery()).isEqualTo(new SyncRecovery(List.of("a", "c"), 1, 2, List.of(List.of("b"), List.of("d"))));
        assertThat(d.syncSites()).isEmpty();
    }

    private Flushed recover(Lease lease, BlockEntries entries) {
        return await(service.flush(new Flush("vm", lease.holder(), lease.epoch(), false, "", entries, true)));
    }
}
