package io.heliotrope.storage.session;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.view.RemoteWrites;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.version.Version;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.TestingBuffers.filled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The handoff of an image between two sites' sessions, over one controller. */
class TestHandoffSessions {
    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final MemoryBlockStore storeA = new MemoryBlockStore();
    private final MemoryBlockStore storeB = new MemoryBlockStore();
    private final ControllerSessions a = sessions("a", storeA);
    private final ControllerSessions b = sessions("b", storeB);

    TestHandoffSessions() {
        controller.createImage("disk", 64 * BLOCK_SIZE);
    }

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        storeA.close();
        storeB.close();
    }

    private ControllerSessions sessions(String site, MemoryBlockStore store) {
        return new ControllerSessions(site, store, store.view(), controller.forSite(site), (image, opened) -> {}, scheduler, Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1));
    }

    private static BlockDevice open(ControllerSessions sessions, MemoryBlockStore store) {
        return new ImageExports(sessions, new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true,
                Runnable::run, UnpooledByteBufAllocator.DEFAULT), Runnable::run).open("disk").join();
    }

    private static long deadline() {
        return System.nanoTime() + Duration.ofSeconds(5).toNanos();
    }

    @Test
    void aStandbyServesReadsAtOnceAndItsWritesWaitForTheLeaseHandedOver() {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(2, 7), false).join();
        long sourceEpoch = controller.forSite("a").lease("disk").epoch();

        b.standby("disk", "a");
        BlockDevice destination = open(b, storeB);
        ByteBuf unwritten = destination.read(8 * BLOCK_SIZE, BLOCK_SIZE).join();
        assertThat(unwritten.getByte(0)).isZero();
        unwritten.release();
        CompletableFuture<Void> waiting = destination.write(4 * BLOCK_SIZE, filled(1, 9), false);
        assertThat(destination.flush().join()).as("a FLUSH with nothing written is answered").isNull();
        assertThat(waiting).isNotDone();
        assertThat(controller.holder("disk")).isEqualTo("a");

        Handed handed = a.handOver("disk", "b", deadline());
        assertThat(handed.epoch()).isEqualTo(sourceEpoch + 1);
        assertThat(controller.holder("disk")).isEqualTo("b");
        assertThat(controller.view("disk").get(1L).holder()).as("the final flush committed the source's writes").isEqualTo("a");
        CompletableFuture<Void> held = source.write(6 * BLOCK_SIZE, filled(1, 3), false);
        assertThat(source.flush().join()).as("a held connection's FLUSH is answered").isNull();
        assertThat(held).isNotDone();

        assertThat(b.activate("disk")).isEqualTo(handed.epoch());
        waiting.join();
        assertThat(held).as("the source's I/O stays held").isNotDone();
        destination.close();
        assertThat(Version.of(controller.view("disk").get(4L).version()).epoch()).isEqualTo(handed.epoch());
        assertThat(controller.view("disk").get(4L).holder()).isEqualTo("b");
        assertThat(controller.holder("disk")).as("released by the destination's close").isNull();
    }

    @Test
    void aStandbyActivatedOnTheControllersWordReadsNothingMoreAndTheSourcesActivateComesSecond() throws Exception {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(2, 7), false).join();
        b.standby("disk", "a");
        BlockDevice destination = open(b, storeB);
        CompletableFuture<Void> waiting = destination.write(4 * BLOCK_SIZE, filled(1, 9), false);
        CompletableFuture<Controller.Synced> awaited = b.awaitHandoff("disk", Duration.ofSeconds(30));
        assertThat(awaited).isNotDone();

        Handed handed = a.handOver("disk", "b", deadline());
        Controller.Synced synced = awaited.get(10, TimeUnit.SECONDS);
        int reads = controller.reads();

        assertThat(synced.lease()).isEqualTo(new Controller.LeaseState("b", handed.epoch(), handed.epoch()));
        assertThat(b.activate("disk", synced)).isEqualTo(handed.epoch());
        waiting.join();
        assertThat(b.activate("disk")).as("the source's Activate, second").isEqualTo(handed.epoch());
        assertThat(controller.reads()).as("adopted without reading the lease again").isEqualTo(reads);
        destination.close();
        assertThat(controller.view("disk").get(1L).holder()).as("the final flush's metadata came with the answer").isEqualTo("a");
        assertThat(Version.of(controller.view("disk").get(4L).version()).epoch()).isEqualTo(handed.epoch());
        assertThat(controller.holder("disk")).as("released by the destination's close").isNull();
    }

    /** The source's Activate reads the lease outside the image's turn: the controller's word, coming meanwhile, does not wait for that read. */
    @Test
    void theControllersWordActivatesWhileAnActivateThatCameFirstReads() throws Exception {
        open(a, storeA);
        b.standby("disk", "a");
        open(b, storeB);
        CompletableFuture<Controller.Synced> awaited = b.awaitHandoff("disk", Duration.ofSeconds(30));
        Handed handed = a.handOver("disk", "b", deadline());
        Controller.Synced synced = awaited.get(10, TimeUnit.SECONDS);
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        controller.hold("disk", reading, answer);
        CompletableFuture<Long> activate = CompletableFuture.supplyAsync(() -> b.activate("disk"));
        assertThat(reading.await(10, TimeUnit.SECONDS)).as("the Activate reads the lease").isTrue();

        assertThat(CompletableFuture.supplyAsync(() -> b.activate("disk", synced)).get(10, TimeUnit.SECONDS)).isEqualTo(handed.epoch());
        answer.countDown();
        assertThat(activate.get(10, TimeUnit.SECONDS)).as("the Activate, done reading, finds the image active").isEqualTo(handed.epoch());
    }

    @Test
    void anAbandonWinsOverTheControllersWordThatComesLate() {
        open(a, storeA);
        b.standby("disk", "a");
        open(b, storeB);
        CompletableFuture<Controller.Synced> awaited = b.awaitHandoff("disk", Duration.ofSeconds(30));
        Handed handed = a.handOver("disk", "b", deadline());
        Controller.Synced synced = awaited.join();

        b.end("disk", "its handoff was rolled back");
        assertThatThrownBy(() -> b.activate("disk", synced)).isInstanceOf(HeliotropeException.class)
                .hasMessage("image 'disk' is not in standby here: its handoff was rolled back or lapsed");
        assertThat(controller.holder("disk")).as("neither adopted nor released").isEqualTo("b");
        assertThat(controller.forSite("b").lease("disk").epoch()).isEqualTo(handed.epoch());
    }

    @Test
    void anAwaitInVainAnswersTheLeaseWhereItIsAndNoMetadata() {
        open(a, storeA);
        b.standby("disk", "a");
        long synced = storeB.view().metaSeq(storeB.image("disk").id());
        long epoch = controller.forSite("a").lease("disk").epoch();
        controller.forSite("a").flush("disk", epoch, List.of(new BlockVersion(3, Version.compose(epoch, 1), BlockState.DATA)), "a", false);

        Controller.Synced found = b.awaitHandoff("disk", Duration.ofMillis(50)).join();

        assertThat(found.lease()).isEqualTo(new Controller.LeaseState("a", epoch, epoch));
        assertThat(found.opened().entries()).as("a checkpoint committed since the standby's sync").isEmpty();
        assertThat(found.opened().metaSeq()).isEqualTo(synced);
    }

    @Test
    void aLostReplyIsSettledByReadingTheLease() {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(1, 7), false).join();
        long sourceEpoch = controller.forSite("a").lease("disk").epoch();
        controller.loseNextHandOverReply();

        assertThat(a.handOver("disk", "b", deadline())).isEqualTo(new Handed(sourceEpoch + 1, 0));
        assertThat(storeA.dirtyBlocks(storeA.image("disk").id())).as("committed by the flush whose reply was lost").isEmpty();
    }

    @Test
    void aRemoteImagesDestinationSendsItsWritesHomeFromItsStandbyOn() {
        controller.replicate("disk", Replication.defaults("a").withMode(Replication.Mode.REMOTE));
        BlockDevice source = open(a, storeA);
        assertThat(a.session("disk").remoteWrites()).as("served from the store at its home").isEmpty();

        b.standby("disk", "a");
        BlockDevice destination = open(b, storeB);
        assertThat(b.session("disk").remoteWrites()).map(RemoteWrites::home).contains("a");
        Handed handed = a.handOver("disk", "b", deadline());
        assertThat(b.activate("disk")).isEqualTo(handed.epoch());
        assertThat(b.session("disk").remoteWrites()).as("the adopted session's writes").map(RemoteWrites::home).contains("a");
        destination.close();
        source.close();
    }

    @Test
    void aReclaimAfterARollbackServesTheHeldRequestsUnderTheNewEpoch() {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(1, 7), false).join();
        assertThat(a.holdsForWrite("disk")).isTrue();
        a.handOver("disk", "b", deadline());
        assertThat(a.holdsForWrite("disk")).as("handed over: the new holder's sync copies land here").isFalse();
        CompletableFuture<Void> held = source.write(BLOCK_SIZE, filled(1, 5), false);
        long back = controller.giveBack("disk", "a");

        assertThat(a.reclaim("disk")).isEqualTo(back);
        assertThat(a.holdsForWrite("disk")).isTrue();
        held.join();
        source.close();
        assertThat(Version.of(controller.view("disk").get(1L).version()).epoch()).isEqualTo(back);
        assertThat(controller.holder("disk")).isNull();
    }

    @Test
    void aReclaimAfterARollbackBeforeTheMoveFollowsTheHoldingToItsNextEpoch() {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(1, 7), false).join();
        long epoch = controller.forSite("a").lease("disk").epoch();

        long next = controller.advanceHolding("disk");

        assertThat(a.reclaim("disk")).isEqualTo(next).isEqualTo(epoch + 1);
        source.write(BLOCK_SIZE, filled(1, 5), false).join();
        source.close();
        assertThat(Version.of(controller.view("disk").get(0L).version()).epoch()).as("written before the rollback").isEqualTo(epoch);
        assertThat(Version.of(controller.view("disk").get(1L).version()).epoch()).isEqualTo(epoch + 1);
        assertThat(controller.holder("disk")).as("released by the close").isNull();
    }

    /** The renewal or checkpoint that comes first after a rollback before the move is refused: the session follows the holding instead of being fenced. */
    @Test
    void aFlushRefusedForARollbackBeforeTheMoveGoesAgainUnderTheNextEpoch() {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(1, 7), false).join();
        long next = controller.advanceHolding("disk");

        source.close();
        assertThat(controller.view("disk").get(0L).holder()).isEqualTo("a");
        assertThat(controller.holder("disk")).as("released at epoch " + next).isNull();
        assertThat(storeA.dirtyBlocks(storeA.image("disk").id())).isEmpty();
    }

    /** A handover whose final flush lost to the rollback: reclaimed, the source flushes what it wrote before, under the holding's next epoch. */
    @Test
    void aHeldSourceReclaimedAtTheNextEpochOfItsHoldingKeepsWhatItWroteBefore() throws Exception {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(1, 7), false).join();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        controller.hold("disk", entered, release);
        CompletableFuture<Handed> handover = CompletableFuture.supplyAsync(() -> a.handOver("disk", "b", deadline()));
        entered.await();
        long next = controller.advanceHolding("disk");
        controller.hold("disk", new CountDownLatch(1), new CountDownLatch(0));
        release.countDown();
        assertThatThrownBy(handover::join).cause().isInstanceOf(HeliotropeException.class)
                .satisfies(e -> assertThat(((HeliotropeException) e).code()).isEqualTo(ErrorCode.STALE_LEASE));
        CompletableFuture<Void> held = source.write(BLOCK_SIZE, filled(1, 5), false);

        assertThat(a.reclaim("disk")).isEqualTo(next);
        held.join();
        source.close();
        assertThat(Version.of(controller.view("disk").get(0L).version()).epoch()).isEqualTo(next - 1);
        assertThat(Version.of(controller.view("disk").get(1L).version()).epoch()).isEqualTo(next);
    }

    @Test
    void anActivateAfterTheStandbyWasAbandonedIsRefused() {
        open(a, storeA);
        b.standby("disk", "a");
        open(b, storeB);
        Handed handed = a.handOver("disk", "b", deadline());

        b.end("disk", "its handoff was rolled back");
        assertThatThrownBy(() -> b.activate("disk")).isInstanceOf(HeliotropeException.class)
                .hasMessage("image 'disk' is not in standby here: its handoff was rolled back or lapsed");
        assertThat(controller.holder("disk")).as("neither adopted nor released").isEqualTo("b");
        assertThat(controller.forSite("b").lease("disk").epoch()).isEqualTo(handed.epoch());
    }

    @Test
    void theEndOfAHoldFailsTheHeldRequestsAndNeitherFlushesNorReleases() {
        BlockDevice source = open(a, storeA);
        source.write(0, filled(1, 7), false).join();
        a.handOver("disk", "b", deadline());
        CompletableFuture<ByteBuf> held = source.read(0, BLOCK_SIZE);

        a.end("disk", "handed over");
        assertThatThrownBy(held::join).cause().isInstanceOf(HeliotropeException.class)
                .satisfies(e -> assertThat(((HeliotropeException) e).code()).isEqualTo(ErrorCode.STALE_LEASE));
        source.close();
        assertThat(controller.holder("disk")).as("the lease stays where it was handed").isEqualTo("b");
    }

    @Test
    void anAbandonedStandbyFailsItsWaitingWrites() {
        open(a, storeA);
        b.standby("disk", "a");
        BlockDevice destination = open(b, storeB);
        CompletableFuture<Void> waiting = destination.write(0, filled(1, 9), false);

        b.end("disk", "its handoff was rolled back");
        assertThatThrownBy(waiting::join).cause().hasMessageContaining("rolled back");
        assertThat(b.inStandby("disk")).isFalse();
        assertThat(controller.holder("disk")).isEqualTo("a");
    }
}
