package io.heliotrope.controller.service;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.Changes;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waits for the lease across sites: a write open waits, bounded, for the other site's release
 * (close-to-open); a site in standby awaits the handoff that moves the lease to it.
 */
@ExtendWith(ZooKeeperExtension.class)
class TestOpenWait {
    private static final Duration WAIT = Duration.ofMillis(700);

    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private TestingController controller;
    private ControllerService service;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "vm", "a", "b");
        service = controller.service();
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void anOpenThatWaitsGetsTheLeaseOnceTheHolderReleasesIt(EmbeddedZooKeeper zooKeeper) {
        Lease a = controller.openForWrite("vm", "a");

        CompletableFuture<OpenedImage> b = service.openImage("vm", "b", OpenMode.WRITE, 0, Duration.ofSeconds(30));
        assertThat(b).isNotDone();
        // Through another controller: the waiting one learns of the release from ZooKeeper, not from itself.
        try (TestingController other = new TestingController(zooKeeper, controller.root(), clock, TestingController.MANUAL)) {
            await(other.service().closeImage("vm", "a", a.epoch()));
        }

        Lease granted = await(b).lease();
        assertThat(granted.holder()).isEqualTo("b");
        assertThat(granted.epoch()).isEqualTo(a.epoch() + 1);
    }

    @Test
    void anOpenThatWaitsInVainFailsNamingTheHolderAndTheWait() {
        controller.openForWrite("vm", "a");
        long start = System.nanoTime();

        assertRefused(() -> await(service.openImage("vm", "b", OpenMode.WRITE, 0, WAIT)), ErrorCode.LEASE_HELD,
                "image 'vm': write lease held by site a (epoch 1, 15.0 s left); waited 700 ms for its release");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(WAIT);
    }

    @Test
    void anOpenThatWaitsGetsALeaseThatExpiresMeanwhileWithoutWaitingItsWholeWait() {
        controller.openForWrite("vm", "a");
        clock.advance(TestingController.LEASE_TTL.minusMillis(100));
        long start = System.nanoTime();

        CompletableFuture<OpenedImage> b = service.openImage("vm", "b", OpenMode.WRITE, 0, Duration.ofSeconds(30));
        clock.advance(Duration.ofMillis(100));

        assertThat(await(b).lease().holder()).isEqualTo("b");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void waitsAreBounded() {
        assertRefused(() -> await(service.openImage("vm", "b", OpenMode.WRITE, 0, Duration.ofMinutes(11))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': an open may wait at most 600 s for the lease, not 660000 ms");
    }

    @Test
    void anAwaitAnswersOnceTheFinalFlushMovesTheLeaseWithTheMetadataSinceItsCachedSeq(EmbeddedZooKeeper zooKeeper) {
        Lease a = controller.openForWrite("vm", "a");
        long cached = controller.flush("vm", "a", a.epoch(), entries(0, a.epoch())).metaSeq();
        await(service.prepare("vm", "a", "b"));

        CompletableFuture<OpenedImage> awaiting = service.awaitHandoff("vm", "b", cached, Duration.ofSeconds(30));
        await(service.renewLease("vm", "a", a.epoch()));
        assertThat(awaiting).as("a change of the lease that leaves it at a").isNotDone();
        // Through another controller: the waiting one learns of the move from ZooKeeper, not from itself.
        try (TestingController other = new TestingController(zooKeeper, controller.root(), clock, TestingController.MANUAL)) {
            await(other.service().flush(new Flush("vm", "a", a.epoch(), false, "b", entries(1, a.epoch()))));
        }

        OpenedImage handed = await(awaiting);
        assertThat(handed.lease().holder()).isEqualTo("b");
        assertThat(handed.lease().epoch()).isEqualTo(a.epoch() + 1);
        assertThat(handed.lease().handedFrom()).isEqualTo("a");
        assertThat(handed.changes().metaSeq()).isEqualTo(cached + 1);
        assertThat(handed.changes().deltas()).containsExactly(entries(1, a.epoch()));
        assertThat(handed.changes()).isEqualTo(await(service.openImage("vm", "b", OpenMode.READ, cached, Duration.ZERO)).changes());
        assertThat(await(service.awaitHandoff("vm", "b", cached, Duration.ZERO))).as("the lease there already: answered at once").isEqualTo(handed);
    }

    @Test
    void anAwaitInVainAnswersTheLeaseWhereItIsAndNoMetadata() {
        Lease a = controller.openForWrite("vm", "a");
        controller.flush("vm", "a", a.epoch(), entries(0, a.epoch()));
        long start = System.nanoTime();

        OpenedImage found = await(service.awaitHandoff("vm", "b", 0, WAIT));

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(WAIT);
        assertThat(found.lease()).isEqualTo(await(service.getLease("vm")));
        assertThat(found.lease().holder()).isEqualTo("a");
        assertThat(found.changes()).isEqualTo(Changes.none(0));
    }

    @Test
    void awaitsAreBounded() {
        assertRefused(() -> await(service.awaitHandoff("vm", "b", 0, Duration.ofMinutes(11))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': a handoff's await may wait at most 600 s for the lease, not 660000 ms");
    }

    private static BlockEntries entries(long block, long epoch) {
        return BlockEntries.builder().add(block, Version.compose(epoch, 1), "a").build();
    }
}
