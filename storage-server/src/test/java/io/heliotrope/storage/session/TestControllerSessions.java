package io.heliotrope.storage.session;

import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.Replicator;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.Extent;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.version.Version;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static io.heliotrope.storage.TestingBuffers.bytes;
import static io.heliotrope.storage.TestingBuffers.filled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class TestControllerSessions {
    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final MemoryBlockStore storeA = new MemoryBlockStore();
    private final MemoryBlockStore storeB = new MemoryBlockStore();

    TestControllerSessions() {
        controller.createImage("disk", 64 * BLOCK_SIZE);
    }

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        callers.shutdownNow();
        storeA.close();
        storeB.close();
    }

    private ControllerSessions sessions(String site, MemoryBlockStore store, long checkpointBlocks) {
        return new ControllerSessions(site, store, store.view(), controller.forSite(site), (image, opened) -> {}, scheduler, Duration.ofMinutes(1), checkpointBlocks, Duration.ofMinutes(1));
    }

    private static ImageExports exports(ControllerSessions sessions, BlockStore store) {
        return exports(sessions, store, ReplicatorFactory.NONE);
    }

    private static ImageExports exports(ControllerSessions sessions, BlockStore store, ReplicatorFactory replicators) {
        return new ImageExports(sessions, new DefaultDeviceFactory(store, new LocalOnlyFetcher(), replicators, ReadCounter.NONE, Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT),
                Runnable::run);
    }

    @Test
    void theReplicationModeClosesAfterTheFinalFlush() {
        List<String> atClose = new ArrayList<>();
        ReplicatorFactory replicators = session -> new Replicator() {
            @Override
            public void close() {
                atClose.add("holder " + controller.holder("disk") + ", " + controller.view("disk").size() + " blocks committed");
            }
        };
        BlockDevice a = exports(sessions("a", storeA, 1 << 20), storeA, replicators).open("disk").join();
        a.write(0, filled(4, 7), false).join();
        a.close();

        // A proactive image pushes what it still has queued from its close on: by then the lease's holder has committed every version.
        assertThat(atClose).containsExactly("holder null, 4 blocks committed");
    }

    @Test
    void aSecondSiteSeesWhatTheFirstWroteAfterItClosed() {
        BlockDevice a = exports(sessions("a", storeA, 1 << 20), storeA).open("disk").join();
        a.write(0, filled(4, 7), false).join();
        a.write(5 * BLOCK_SIZE, filled(1, 9), false).join();
        a.writeZeroes(5 * BLOCK_SIZE, BLOCK_SIZE, false, false).join();
        assertThat(controller.metaSeq("disk")).isZero();
        a.close();

        assertThat(controller.holder("disk")).isNull();
        assertThat(controller.view("disk")).hasSize(5);
        assertThat(controller.view("disk").get(2L).holder()).isEqualTo("a");
        assertThat(controller.view("disk").get(5L).zero()).isTrue();

        BlockDevice b = exports(sessions("b", storeB, 1 << 20), storeB).open("disk").join();
        assertThatThrownBy(() -> b.read(BLOCK_SIZE, 10).join())
                .cause().isInstanceOf(HeliotropeException.class)
                .hasMessageContaining("block 1 is current only at site 'a'");
        assertThatThrownBy(() -> b.write(BLOCK_SIZE + 10, Unpooled.wrappedBuffer(new byte[10]), false).join())
                .as("a partial write reads the block first")
                .cause().isInstanceOf(HeliotropeException.class)
                .hasMessageContaining("block 1 is current only at site 'a'");
        assertThat(bytes(b.read(5 * BLOCK_SIZE, BLOCK_SIZE).join())).containsOnly(0);
        assertThat(b.blockStatus(0, 8 * BLOCK_SIZE).join())
                .containsExactly(Extent.data(4 * BLOCK_SIZE), Extent.zeroHole(4 * BLOCK_SIZE));

        b.write(BLOCK_SIZE, filled(1, 3), false).join();
        assertThat(bytes(b.read(BLOCK_SIZE, BLOCK_SIZE).join())).containsOnly(3);
        b.close();

        GlobalBlock rewritten = controller.view("disk").get(1L);
        assertThat(rewritten.holder()).isEqualTo("b");
        assertThat(rewritten.version()).isGreaterThan(controller.view("disk").get(0L).version());
        assertThat(controller.view("disk").get(0L).holder()).isEqualTo("a");
    }

    @Test
    void checkpointsDirtyBlocksWhileTheImageIsOpen() {
        BlockDevice a = exports(sessions("a", storeA, 4), storeA).open("disk").join();
        a.write(0, filled(4, 1), false).join();

        awaitTrue(() -> controller.metaSeq("disk") == 1, "a checkpoint after 4 blocks");
        assertThat(controller.view("disk")).hasSize(4);
        assertThat(controller.holder("disk")).isEqualTo("a");
        a.close();
        assertThat(storeA.dirtyBlocks(storeA.image("disk").id())).isEmpty();
    }

    @Test
    void aFencedSessionRefusesIoAndOrphansWhatItHadNotFlushed() {
        ControllerSessions sessions = sessions("a", storeA, 1);
        BlockDevice a = exports(sessions, storeA).open("disk").join();
        controller.fence("disk", "b");
        a.write(0, filled(1, 1), false).join();

        awaitTrue(() -> isStale(() -> a.read(0, BLOCK_SIZE).join().release()), "I/O refused once the checkpoint finds the lease fenced");
        assertThatThrownBy(() -> a.write(BLOCK_SIZE, filled(1, 2), false).join()).hasMessageContaining("lost its write lease");
        a.close();

        assertThat(sessions.orphanedBlocks()).isEqualTo(1);
        assertThat(controller.view("disk")).isEmpty();
        assertThat(storeA.dirtyBlocks(storeA.image("disk").id())).isEmpty();
    }

    @Test
    void aRestartedSiteFlushesWhatItHadNotIfItsLeaseIsCurrent() {
        BlockDevice a = exports(sessions("a", storeA, 1 << 20), storeA).open("disk").join();
        a.write(0, filled(3, 1), false).join();
        // The process dies here: no close. A new process over the same store recovers.
        ControllerSessions restarted = sessions("a", storeA, 1 << 20);
        restarted.recover();

        assertThat(controller.view("disk")).hasSize(3);
        assertThat(controller.holder("disk")).isNull();
        assertThat(restarted.orphanedBlocks()).isZero();
    }

    @Test
    void aRestartedSiteThatWasFencedOrphansItsBlocksAndNeverServesThem() {
        BlockDevice a = exports(sessions("a", storeA, 1 << 20), storeA).open("disk").join();
        a.write(0, filled(3, 1), false).join();
        controller.fence("disk", "b");
        controller.forSite("b").flush("disk", 2, List.of(), "b", true);

        ControllerSessions restarted = sessions("a", storeA, 1 << 20);
        restarted.recover();
        assertThat(restarted.orphanedBlocks()).isEqualTo(3);

        BlockDevice again = exports(restarted, storeA).open("disk").join();
        assertThat(bytes(again.read(0, 3 * BLOCK_SIZE).join())).containsOnly(0);
        assertThat(again.blockStatus(0, 3 * BLOCK_SIZE).join()).containsExactly(Extent.zeroHole(3 * BLOCK_SIZE));
        again.close();
    }

    @Test
    void anOpenHeldUpAtTheControllerLetsOtherImagesOpenAndPushesInMeanwhile() throws InterruptedException {
        controller.createImage("other", 64 * BLOCK_SIZE);
        ControllerSessions sessions = sessions("a", storeA, 1 << 20);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        controller.hold("disk", entered, release);
        CompletableFuture<ImageSession> disk = CompletableFuture.supplyAsync(() -> sessions.open("disk"), callers);
        entered.await();

        assertThat(CompletableFuture.supplyAsync(() -> sessions.open("other"), callers)).succeedsWithin(Duration.ofSeconds(10))
                .satisfies(ImageSession::close);
        // Until the lease is ours the holder elsewhere may still write: its sync copies (a remote image's writes, at its home) land here.
        assertThat(sessions.holdsForWrite("disk")).isFalse();
        assertThat(disk).isNotDone();
        release.countDown();
        ImageSession session = disk.join();
        assertThat(sessions.holdsForWrite("disk")).isTrue();
        session.close();
        assertThat(sessions.holdsForWrite("disk")).isFalse();
        assertThat(controller.holder("disk")).isNull();
    }

    @Test
    void anOpenCompletesWhileTheControllerHoldsUpTheRecoveryOfAnotherImage() throws InterruptedException {
        controller.createImage("other", 64 * BLOCK_SIZE);
        long epoch = sessions("a", storeA, 1 << 20).open("disk").epoch();
        long image = storeA.image("disk").id();
        storeA.write(image, 1, filled(1, 1).nioBuffer(), Version.compose(epoch, 1), RECORD, false);
        // The process dies here: no close. A new process over the same store recovers while opening another image.
        ControllerSessions restarted = sessions("a", storeA, 1 << 20);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        controller.hold("disk", entered, release);
        CompletableFuture<Void> recovery = CompletableFuture.runAsync(restarted::recover, callers);
        entered.await();

        assertThat(CompletableFuture.supplyAsync(() -> restarted.open("other"), callers)).succeedsWithin(Duration.ofSeconds(10))
                .satisfies(ImageSession::close);
        assertThat(recovery).isNotDone();
        release.countDown();
        recovery.join();
        assertThat(restarted.orphanedBlocks()).isZero();
        assertThat(controller.view("disk")).containsOnlyKeys(1L);
        assertThat(controller.holder("disk")).isNull();
    }

    @Test
    void aRestartedSiteFlushesTheBlocksOfEveryEpochItsCurrentLeaseAdvancedThrough() {
        ImageSession session = sessions("a", storeA, 1 << 20).open("disk");
        long image = storeA.image("disk").id();
        long granted = session.epoch();
        storeA.write(image, 1, filled(1, 1).nioBuffer(), Version.compose(granted, Version.MAX_COUNTER), RECORD, false);
        long advanced = session.nextEpoch();
        storeA.write(image, 2, filled(1, 2).nioBuffer(), Version.compose(advanced, 1), RECORD, false);
        // The process dies here: no close. A new process over the same store recovers.
        ControllerSessions restarted = sessions("a", storeA, 1 << 20);
        restarted.recover();

        assertThat(restarted.orphanedBlocks()).isZero();
        assertThat(controller.view("disk").values()).extracting(GlobalBlock::block, GlobalBlock::version)
                .containsExactly(tuple(1L, Version.compose(granted, Version.MAX_COUNTER)), tuple(2L, Version.compose(advanced, 1)));
        assertThat(controller.holder("disk")).isNull();
        assertThat(storeA.dirtyBlocks(image)).isEmpty();
    }

    @Test
    void aRestartedSiteOrphansTheBlocksOfAnEpochFencedBeforeItsCurrentHolding() {
        ControllerSessions sessions = sessions("a", storeA, 1 << 20);
        long fenced = sessions.open("disk").epoch();
        controller.fence("disk", "b");
        controller.forSite("b").flush("disk", fenced + 1, List.of(), "b", true);
        ImageSession current = sessions.open("disk");
        long image = storeA.image("disk").id();
        storeA.write(image, 1, filled(1, 1).nioBuffer(), Version.compose(fenced, 7), RECORD, false);
        storeA.write(image, 2, filled(1, 2).nioBuffer(), Version.compose(current.epoch(), 1), RECORD, false);
        storeA.write(image, 3, filled(1, 3).nioBuffer(), Version.compose(current.nextEpoch(), 1), RECORD, false);

        ControllerSessions restarted = sessions("a", storeA, 1 << 20);
        restarted.recover();

        assertThat(restarted.orphanedBlocks()).isEqualTo(1);
        assertThat(controller.view("disk")).containsOnlyKeys(2L, 3L);
        assertThat(storeA.dirtyBlocks(image)).isEmpty();
    }

    @Test
    void anAdvanceWhoseReplyWasLostIsRepeatedBeforeTheNextFlush() {
        ControllerSessions sessions = sessions("a", storeA, 1 << 20);
        ImageSession session = sessions.open("disk");
        long image = storeA.image("disk").id();
        long granted = session.epoch();
        storeA.write(image, 1, filled(1, 1).nioBuffer(), Version.compose(granted, 1), RECORD, false);
        controller.loseNextAdvanceReply();

        assertThatThrownBy(session::nextEpoch).hasMessage("the controller did not answer in time");
        storeA.write(image, 2, filled(1, 2).nioBuffer(), Version.compose(session.epoch(), 2), RECORD, false);
        session.close();

        assertThat(sessions.orphanedBlocks()).isZero();
        assertThat(controller.view("disk")).containsOnlyKeys(1L, 2L);
        assertThat(session.epoch()).isEqualTo(granted + 1);
    }

    @Test
    void anOldSessionEndingLateLeavesTheNewSessionsBlocksAlone() {
        ControllerSessions sessions = sessions("a", storeA, 1 << 20);
        var first = sessions.open("disk");
        var second = sessions.open("disk");
        assertThat(second.epoch()).isGreaterThan(first.epoch());
        long image = storeA.image("disk").id();
        storeA.write(image, 5, filled(1, 4).nioBuffer(), Version.compose(second.epoch(), 1), RECORD, false);

        first.close();
        assertThat(storeA.dirtyBlocks(image)).extracting(BlockStore.BlockVersion::block).containsExactly(5L);
        assertThat(sessions.orphanedBlocks()).isZero();

        second.close();
        assertThat(controller.view("disk").get(5L).holder()).isEqualTo("a");
        assertThat(storeA.dirtyBlocks(image)).isEmpty();
    }

    private static boolean isStale(Runnable action) {
        try {
            action.run();
            return false;
        } catch (RuntimeException e) {
            return HeliotropeException.unwrap(e) instanceof HeliotropeException h && h.code() == ErrorCode.STALE_LEASE;
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait();
        }
    }
}
