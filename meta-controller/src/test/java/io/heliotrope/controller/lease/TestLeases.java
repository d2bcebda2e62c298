package io.heliotrope.controller.lease;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.Changes;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.metadata.Flushed;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.LEASE_TTL;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(ZooKeeperExtension.class)
class TestLeases {
    private static final long START = 1_700_000_000_000L;

    private final TestingClock clock = new TestingClock(START);
    private final String root = TestingController.newRoot();
    private TestingController controller;
    private ControllerService service;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = new TestingController(zooKeeper, root, clock, TestingController.MANUAL);
        service = controller.service();
        controller.registerSites("a", "b", "c");
        controller.createImage("vm", 1024);
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void ofManySitesOpeningAtOnceExactlyOneGetsTheLease(EmbeddedZooKeeper zooKeeper) {
        List<String> sites = IntStream.range(0, 12).mapToObj(i -> "racer-" + i).toList();
        controller.registerSites(sites.toArray(String[]::new));
        try (TestingController other = new TestingController(zooKeeper, root, clock, TestingController.MANUAL)) {
            List<CompletableFuture<Lease>> opens = new ArrayList<>();
            for (int i = 0; i < sites.size(); i++) {
                ControllerService via = i % 2 == 0 ? service : other.service();
                opens.add(via.openImage("vm", sites.get(i), OpenMode.WRITE, 0, Duration.ZERO).thenApply(opened -> opened.lease()));
            }
            CompletableFuture.allOf(opens.stream().map(open -> open.exceptionally(failure -> null)).toArray(CompletableFuture[]::new)).join();

            List<Lease> granted = opens.stream().filter(open -> !open.isCompletedExceptionally()).map(CompletableFuture::join).toList();
            assertThat(granted).hasSize(1);
            assertThat(granted.get(0).epoch()).isEqualTo(1);
            for (CompletableFuture<Lease> open : opens) {
                if (open.isCompletedExceptionally()) {
                    assertThatThrownBy(open::join).isInstanceOf(CompletionException.class)
                            .cause().isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.LEASE_HELD))
                            .hasMessage("image 'vm': write lease held by site " + granted.get(0).holder() + " (epoch 1, 15.0 s left)");
                }
            }
        }
    }

    @Test
    void aFlushWithAnOlderEpochIsFenced() {
        Lease first = controller.openForWrite("vm", "a");
        Lease second = controller.openForWrite("vm", "a");
        assertThat(second.epoch()).isEqualTo(first.epoch() + 1);

        assertRefused(() -> controller.flush("vm", "a", first.epoch(), entries("a", first.epoch())), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site a");
        assertThat(controller.flush("vm", "a", second.epoch(), entries("a", second.epoch())).metaSeq()).isEqualTo(1);
    }

    @Test
    void anAdvancedLeaseFlushesTheVersionsOfEveryEpochOfItsHoldingUnderItsNewEpochOnly() {
        Lease granted = controller.openForWrite("vm", "a");
        clock.advance(Duration.ofSeconds(5));
        Lease advanced = await(service.advanceEpoch("vm", "a", granted.epoch()));
        assertThat(advanced).isEqualTo(new Lease("a", 2, 1, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "", List.of(), SyncRecovery.NONE, 0, ""));
        assertThat(await(service.getLease("vm"))).isEqualTo(advanced);

        BlockEntries both = BlockEntries.builder().add(1, Version.compose(1, Version.MAX_COUNTER), "a").add(2, Version.compose(2, 1), "a").build();
        assertRefused(() -> controller.flush("vm", "a", 1, both), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site a");
        assertRefused(() -> await(service.renewLease("vm", "a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site a");
        assertThat(controller.flush("vm", "a", 2, both).metaSeq()).isEqualTo(1);
    }

    @Test
    void aRetriedAdvanceWhoseFirstAttemptWentThroughOnlyRenews() {
        controller.openForWrite("vm", "a");
        await(service.advanceEpoch("vm", "a", 1));
        clock.advance(Duration.ofSeconds(5));

        Lease retried = await(service.advanceEpoch("vm", "a", 1));

        assertThat(retried).isEqualTo(new Lease("a", 2, 1, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "", List.of(), SyncRecovery.NONE, 0, ""));
    }

    @Test
    void onlyTheHolderAdvancesItsLiveLeaseFromItsCurrentEpoch() {
        controller.openForWrite("vm", "a");
        await(service.advanceEpoch("vm", "a", 1));
        await(service.advanceEpoch("vm", "a", 2));
        assertRefused(() -> await(service.advanceEpoch("vm", "b", 3)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 3 of site b is stale: fenced by epoch 3 at site a");
        assertRefused(() -> await(service.advanceEpoch("vm", "a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 3 at site a");

        await(service.breakLease("vm", "a", 3));
        assertRefused(() -> await(service.advanceEpoch("vm", "a", 3)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 3 of site a is stale: broken by an operator 0.0 s ago");
    }

    @Test
    void aNewGrantStartsANewHoldingThatCannotCommitTheVersionsOfAnEarlierOne() {
        Lease fenced = controller.openForWrite("vm", "a");
        Lease reopened = controller.openForWrite("vm", "a");

        assertRefused(() -> controller.flush("vm", "a", reopened.epoch(), entries("a", fenced.epoch())), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': block 1 has version 1.1; versions must be non-zero and of epochs 2 to 2, those site a has held the lease at since its grant");
    }

    @Test
    void anExpiredLeaseIsItsHoldersUntilTheNextSiteTakesIt() {
        Lease lease = controller.openForWrite("vm", "a");
        clock.advance(Duration.ofSeconds(10));
        Lease renewed = await(service.renewLease("vm", "a", lease.epoch()));
        assertThat(renewed.expiresEpochMillis()).isEqualTo(clock.millis() + LEASE_TTL.toMillis());
        assertRefused(() -> controller.openForWrite("vm", "b"), ErrorCode.LEASE_HELD,
                "image 'vm': write lease held by site a (epoch 1, 15.0 s left)");

        // Nobody took it while it was expired (ZooKeeper was out of the holder's reach): the holder goes on under it.
        clock.advance(LEASE_TTL.plusSeconds(2));
        assertThat(controller.flush("vm", "a", lease.epoch(), entries("a", 1)).metaSeq()).isEqualTo(1);
        assertThat(await(service.renewLease("vm", "a", lease.epoch())).activeAt(clock.millis())).isTrue();
        assertRefused(() -> controller.openForWrite("vm", "b"), ErrorCode.LEASE_HELD,
                "image 'vm': write lease held by site a (epoch 1, 15.0 s left)");

        clock.advance(LEASE_TTL.plusSeconds(2));
        Lease taken = controller.openForWrite("vm", "b");
        assertThat(taken).isEqualTo(new Lease("b", 2, 2, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "", List.of(), SyncRecovery.NONE, 0, ""));
        assertRefused(() -> await(service.renewLease("vm", "a", lease.epoch())), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site b");
        assertRefused(() -> controller.flush("vm", "a", lease.epoch(), entries("a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site b");
    }

    @Test
    void closingReleasesTheLeaseButKeepsItsEpoch() {
        Lease lease = controller.openForWrite("vm", "a");
        assertRefused(() -> await(service.closeImage("vm", "a", 7)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 7 of site a is stale: fenced by epoch 1 at site a");

        Lease released = await(service.closeImage("vm", "a", lease.epoch()));

        assertThat(released).isEqualTo(new Lease("", 1, 1, 0, LEASE_TTL.toMillis(), "", List.of(), SyncRecovery.NONE, 0, ""));
        assertRefused(() -> controller.flush("vm", "a", 1, entries("a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: released");
        assertThat(controller.openForWrite("vm", "b").epoch()).isEqualTo(2);
    }

    @Test
    void aFinalFlushMayReleaseTheLease() {
        Lease lease = controller.openForWrite("vm", "a");

        Flushed flushed = await(service.flush(new Flush("vm", "a", lease.epoch(), true, "", entries("a", 1))));

        assertThat(flushed.metaSeq()).isEqualTo(1);
        assertThat(flushed.lease()).isEqualTo(new Lease("", 1, 1, 0, LEASE_TTL.toMillis(), "", List.of(), SyncRecovery.NONE, 0, ""));
        assertRefused(() -> controller.flush("vm", "a", 1, entries("a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: released");
    }

    @Test
    void aPreparedMoveHandsTheLeaseOverWithTheFinalFlush() {
        Lease lease = controller.openForWrite("vm", "a");
        assertRefused(() -> await(service.prepare("vm", "b", "c")), ErrorCode.LEASE_HELD,
                "image 'vm': write lease held by site a (epoch 1, 15.0 s left)");
        assertRefused(() -> await(service.prepare("vm", "a", "nowhere")), ErrorCode.SITE_NOT_FOUND, "site 'nowhere' is not registered");
        Lease prepared = await(service.prepare("vm", "a", "b"));
        assertThat(prepared.movingTo()).isEqualTo("b");
        assertRefused(() -> await(service.flush(new Flush("vm", "a", 1, false, "c", entries("a", 1)))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': cannot move the lease to c: the prepared move is to b");

        Flushed moved = await(service.flush(new Flush("vm", "a", lease.epoch(), false, "b", entries("a", 1))));

        assertThat(moved.metaSeq()).isEqualTo(1);
        assertThat(moved.lease()).isEqualTo(new Lease("b", 2, 2, clock.millis() + LEASE_TTL.toMillis(), LEASE_TTL.toMillis(), "", List.of(), SyncRecovery.NONE, 0, "a"));
        assertRefused(() -> controller.flush("vm", "a", 1, entries("a", 1)), ErrorCode.STALE_LEASE,
                "image 'vm': lease epoch 1 of site a is stale: fenced by epoch 2 at site b");
        assertThat(controller.flush("vm", "b", 2, entries("b", 2)).metaSeq()).isEqualTo(2);
        Changes changes = await(service.openImage("vm", "c", OpenMode.READ, 0, Duration.ZERO)).changes();
        assertThat(changes.deltas()).containsExactly(entries("a", 1), entries("b", 2));
    }

    @Test
    void aMoveNeedsAPrepare() {
        controller.openForWrite("vm", "a");
        assertRefused(() -> await(service.flush(new Flush("vm", "a", 1, false, "b", BlockEntries.EMPTY))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': cannot move the lease to b: no move was prepared");
    }

    @Test
    void unknownSitesAndImagesAreRefused() {
        assertRefused(() -> controller.openForWrite("vm", "mars"), ErrorCode.SITE_NOT_FOUND, "site 'mars' is not registered");
        assertRefused(() -> controller.openForWrite("nope", "a"), ErrorCode.IMAGE_NOT_FOUND, "image 'nope' does not exist");
        assertRefused(() -> controller.flush("vm", "mars", 1, entries("a", 1)), ErrorCode.SITE_NOT_FOUND, "site 'mars' is not registered");
        assertRefused(() -> await(service.renewLease("vm", "Bad Site", 1)), ErrorCode.INVALID_ARGUMENT,
                "invalid site name 'Bad Site': use 1 to 63 lowercase letters, digits or '-'");
    }

    @Test
    void anImageIsNotDeletedUnderALiveLease() {
        Lease lease = controller.openForWrite("vm", "a");
        assertRefused(() -> await(service.deleteImage("vm")), ErrorCode.IMAGE_IN_USE,
                "image 'vm' is open for writing at site a (epoch 1); close it or wait for its lease to expire");

        clock.advance(LEASE_TTL);
        await(service.deleteImage("vm"));

        assertRefused(() -> await(service.renewLease("vm", "a", lease.epoch())), ErrorCode.IMAGE_NOT_FOUND, "image 'vm' does not exist");
    }

    private static BlockEntries entries(String site, long epoch) {
        return BlockEntries.builder().add(epoch, Version.compose(epoch, 1), site).build();
    }
}
