package io.heliotrope.controller.lease;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ControllerServiceConfig;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.LEASE_TTL;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

/** A handoff's life at the controller: its prepare renewed or lapsed, rolled back before its commit point, completed after it; and a broken lease. */
@ExtendWith(ZooKeeperExtension.class)
class TestHandoffs {
    private static final long PREPARE_TTL = ControllerServiceConfig.DEFAULT_PREPARE_TTL.toMillis();

    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private TestingController controller;
    private ControllerService service;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "vm", "a", "b", "c");
        service = controller.service();
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void aPrepareLastsThirtySecondsUnlessPreparedAgainAndALapsedOneMovesNothing() {
        controller.openForWrite("vm", "a");
        assertThat(await(service.prepare("vm", "a", "b")).movingExpiresEpochMillis()).isEqualTo(clock.millis() + PREPARE_TTL);
        advanceRenewing("a", 1, Duration.ofSeconds(10));
        Lease renewed = await(service.prepare("vm", "a", "b"));
        assertThat(renewed.movingTo()).isEqualTo("b");
        assertThat(renewed.movingExpiresEpochMillis()).isEqualTo(clock.millis() + PREPARE_TTL);

        advanceRenewing("a", 1, Duration.ofSeconds(29));
        clock.advance(Duration.ofSeconds(2));

        assertRefused(() -> await(service.flush(new Flush("vm", "a", 1, false, "b", entries("a", 1)))), ErrorCode.STALE_LEASE,
                "image 'vm': cannot move the lease to b: its prepare lapsed 1.0 s ago (not renewed); prepare it again");
        Lease lapsed = await(service.renewLease("vm", "a", 1));
        assertThat(lapsed.movingTo()).isEmpty();
        assertThat(lapsed.movingExpiresEpochMillis()).isZero();
        assertRefused(() -> await(service.flush(new Flush("vm", "a", 1, false, "b", entries("a", 1)))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': cannot move the lease to b: no move was prepared");
    }

    @Test
    void aLivePrepareKeepsOtherSitesOutUntilItLapses() {
        controller.openForWrite("vm", "a");
        await(service.prepare("vm", "a", "b"));
        clock.advance(Duration.ofSeconds(5));
        assertRefused(() -> await(service.prepare("vm", "a", "c")), ErrorCode.LEASE_HELD,
                "image 'vm': the lease of a is prepared to move to b (25.0 s left); it cannot move to c before that handoff is cancelled or lapses");

        advanceRenewing("a", 1, Duration.ofSeconds(25));

        assertThat(await(service.prepare("vm", "a", "c")).movingTo()).isEqualTo("c");
    }

    @Test
    void theMovedLeaseKnowsWhereItCameFromUntilTheHandoffIsCompleted() {
        controller.openForWrite("vm", "a");
        await(service.prepare("vm", "a", "b"));
        Lease moved = await(service.flush(new Flush("vm", "a", 1, false, "b", entries("a", 1)))).lease();
        assertThat(moved).isEqualTo(new Lease("b", 2, 2, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "", List.of(),
                SyncRecovery.NONE, 0, "a"));
        // The driver's renewal of the prepare, behind the final flush, finds the move made.
        assertThat(await(service.prepare("vm", "a", "b"))).isEqualTo(moved);
        clock.advance(Duration.ofSeconds(5));
        assertThat(await(service.renewLease("vm", "b", 2)).handedFrom()).isEqualTo("a");
        assertThat(controller.flush("vm", "b", 2, entries("b", 2)).lease().handedFrom()).isEqualTo("a");

        Lease completed = await(service.completeHandoff("vm", "a", "b"));

        assertThat(completed.handedFrom()).isEmpty();
        assertThat(await(service.completeHandoff("vm", "a", "b"))).isEqualTo(completed);
        assertRefused(() -> await(service.cancelHandoff("vm", "a", "b")), ErrorCode.IMAGE_IN_USE,
                "image 'vm': the handoff to b was completed at epoch 2; it cannot be rolled back");
    }

    @Test
    void aRolledBackMoveGivesTheLeaseBackAtANewEpochAndLeavesTheLearnedMovesAsTheyWere() {
        Lease a = controller.openForWrite("vm", "a");
        Lease b = handOver("a", a.epoch(), "b");
        await(service.completeHandoff("vm", "a", "b"));
        handOver("b", b.epoch(), "a");
        await(service.completeHandoff("vm", "b", "a"));
        LeaseMoves before = moves();
        assertThat(before).isEqualTo(new LeaseMoves("a", Map.of("a", Map.of("b", 1L), "b", Map.of("a", 1L))));
        handOver("a", 3, "b");
        assertThat(moves().from("a")).isEqualTo(Map.of("b", 2L));

        Lease back = await(service.cancelHandoff("vm", "a", "b"));

        assertThat(back).isEqualTo(new Lease("a", 5, 5, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "", List.of(),
                SyncRecovery.NONE, 0, ""));
        assertThat(moves()).isEqualTo(before);
        assertThat(await(service.getImage("vm")).image().transitions().table().row("a")).isEqualTo(Map.of("b", 1.0));
        assertThat(await(service.cancelHandoff("vm", "a", "b"))).isEqualTo(back);
        assertRefused(() -> controller.flush("vm", "b", 4, entries("b", 4)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 4 of site b is stale: fenced by epoch 5 at site a");
        assertThat(controller.flush("vm", "a", 5, entries("a", 5)).lease().holder()).isEqualTo("a");
        // The next real move from a counts from a, the last holder again.
        handOver("a", 5, "c");
        assertThat(moves().from("a")).isEqualTo(Map.of("b", 1L, "c", 1L));
    }

    /** The destination died before its resume and its site gave the lease up: the handoff is still rolled back. */
    @Test
    void aHandoffReleasedByItsDestinationBeforeItCompletedIsStillRolledBack() {
        Lease a = controller.openForWrite("vm", "a");
        Lease b = handOver("a", a.epoch(), "b");
        Lease released = await(service.closeImage("vm", "b", b.epoch()));
        assertThat(released.held()).isFalse();
        assertThat(released.handedFrom()).isEqualTo("a");

        Lease back = await(service.cancelHandoff("vm", "a", "b"));

        assertThat(back).isEqualTo(new Lease("a", b.epoch() + 1, b.epoch() + 1, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "",
                List.of(), SyncRecovery.NONE, 0, ""));
        assertThat(moves()).isEqualTo(new LeaseMoves("a", Map.of()));
        assertThat(await(service.cancelHandoff("vm", "a", "b"))).isEqualTo(back);
    }

    @Test
    void aHandoffRolledBackBeforeItsMoveKeepsTheHoldingAtTheNextEpoch() {
        controller.openForWrite("vm", "a");
        await(service.prepare("vm", "a", "b"));

        Lease kept = await(service.cancelHandoff("vm", "a", "b"));

        assertThat(kept).isEqualTo(new Lease("a", 2, 1, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "", List.of(),
                SyncRecovery.NONE, 0, ""));
        assertRefused(() -> await(service.flush(new Flush("vm", "a", 1, false, "b", entries("a", 1)))), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site a");
        // The versions a wrote at epoch 1 are still its own to flush.
        assertThat(controller.flush("vm", "a", 2, entries("a", 1)).metaSeq()).isEqualTo(1);
        assertThat(moves()).isEqualTo(new LeaseMoves("a", Map.of()));
    }

    @Test
    void aHandoffIsNotRolledBackWhenTheLeaseIsElsewhere() {
        controller.openForWrite("vm", "c");
        assertRefused(() -> await(service.cancelHandoff("vm", "a", "b")), ErrorCode.STALE_LEASE,
                "image 'vm': no handoff from a to b to roll back: the lease is at site c (epoch 1)");
        assertRefused(() -> await(service.completeHandoff("vm", "a", "b")), ErrorCode.STALE_LEASE,
                "image 'vm': no handoff from a to b to complete: the lease is at site c (epoch 1)");
        await(service.prepare("vm", "c", "a"));
        assertRefused(() -> await(service.cancelHandoff("vm", "c", "b")), ErrorCode.STALE_LEASE,
                "image 'vm': no handoff from c to b to roll back: the lease is at site c (epoch 1), prepared to move to a");
    }

    @Test
    void aBrokenLeaseIsFencedLikeAnExpiredOne() {
        Lease lease = controller.openForWrite("vm", "a");
        await(service.recordSyncSites("vm", "a", lease.epoch(), List.of("c")));
        assertRefused(() -> await(service.breakLease("vm", "a", 2)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 2 of site a is stale: fenced by epoch 1 at site a");
        assertRefused(() -> await(service.breakLease("vm", "b", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site b is stale: fenced by epoch 1 at site a");

        Lease broken = await(service.breakLease("vm", "a", 1));

        assertThat(broken.expiresEpochMillis()).isEqualTo(clock.millis());
        assertThat(broken.activeAt(clock.millis())).isFalse();
        assertRefused(() -> await(service.renewLease("vm", "a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: broken by an operator 0.0 s ago");
        Lease taken = controller.openForWrite("vm", "b");
        assertThat(taken.epoch()).isEqualTo(2);
        assertThat(taken.recovery()).isEqualTo(new SyncRecovery(List.of("a"), 1, 1, List.of(List.of("c"))));
        assertRefused(() -> await(service.breakLease("vm", "a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site b");
    }

    /** Moves the clock on by {@code duration}, renewing the lease of {@code site} every 5 s of it. */
    private void advanceRenewing(String site, long epoch, Duration duration) {
        for (Duration left = duration; !left.isZero(); ) {
            Duration step = left.compareTo(Duration.ofSeconds(5)) < 0 ? left : Duration.ofSeconds(5);
            clock.advance(step);
            left = left.minus(step);
            if (!left.isZero()) {
                await(service.renewLease("vm", site, epoch));
            }
        }
    }

    /** A whole handoff's lease side: prepare, then the final flush that moves the lease. */
    private Lease handOver(String from, long epoch, String to) {
        await(service.prepare("vm", from, to));
        return await(service.flush(new Flush("vm", from, epoch, false, to, entries(from, epoch)))).lease();
    }

    private LeaseMoves moves() {
        return await(service.getImage("vm")).image().moves();
    }

    private static BlockEntries entries(String site, long epoch) {
        return BlockEntries.builder().add(epoch, Version.compose(epoch, 1), site).build();
    }
}
