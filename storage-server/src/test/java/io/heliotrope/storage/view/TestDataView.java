package io.heliotrope.storage.view;

import io.heliotrope.storage.session.TestingController;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.image.Locality;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.view.TestingBlockFetcher.Fetch;
import io.heliotrope.storage.view.WanWaits.Cause;
import io.heliotrope.version.Version;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Site b wrote block 0 and closed, then site a wrote blocks 1 to 3 and a zero marker on
 * block 5 and closed: at b, block 0 is current, 1 to 3 are current only at a, 5 reads as
 * zeros and the rest were never written.
 */
class TestDataView {
    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final MemoryBlockStore storeA = new MemoryBlockStore();
    private final MemoryBlockStore storeB = new MemoryBlockStore();
    private final ControllerSessions siteB = sessions("b", storeB);
    private final TestingBlockFetcher fetcher = new TestingBlockFetcher();
    private final long versionAtA;

    TestDataView() {
        controller.createImage("disk", 8 * BLOCK_SIZE);
        ImageSession b = siteB.open("disk");
        view(b, storeB).write(0, filled(1, 4), Version.compose(b.epoch(), 1), false);
        b.close();
        ImageSession a = sessions("a", storeA).open("disk");
        versionAtA = Version.compose(a.epoch(), 1);
        DataView atA = view(a, storeA);
        atA.write(1, filled(3, 7), versionAtA, false);
        atA.write(5, filled(1, 9), versionAtA, false);
        atA.zero(5, 1, Version.compose(a.epoch(), 2), false);
        a.close();
    }

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        storeA.close();
        storeB.close();
    }

    @Test
    void servesBlocksCurrentHereZeroMarkersAndUnwrittenBlocksWithoutTheFetcher() {
        DataView view = view(siteB.open("disk"), storeB);
        ByteBuffer current = ByteBuffer.allocate(BLOCK_SIZE);
        assertThat(view.read(0, 1, current)).isCompleted();
        assertThat(current.array()).containsOnly(4);
        ByteBuffer zeros = ByteBuffer.allocate(3 * BLOCK_SIZE);
        assertThat(view.read(4, 3, zeros)).isCompleted();
        assertThat(zeros.array()).containsOnly(0);
        assertThat(fetcher.fetches()).isEmpty();
    }

    @Test
    void readsABlockNotCurrentHereOnceItsCommittedVersionArrivesFromItsHolder() {
        DataView view = view(siteB.open("disk"), storeB);
        ByteBuffer destination = ByteBuffer.allocate(BLOCK_SIZE);
        CompletableFuture<Void> read = view.read(2, 1, destination);

        assertThat(fetcher.fetches()).extracting(Fetch::image, Fetch::block, Fetch::version, Fetch::holder)
                .containsExactly(tuple("disk", 2L, versionAtA, "a"));
        assertThat(read).isNotDone();
        arrive(fetcher.fetches().get(0));
        assertThat(read).isCompleted();
        assertThat(destination.array()).containsOnly(7);

        assertThat(view.read(2, 1, ByteBuffer.allocate(BLOCK_SIZE))).as("current here since").isCompleted();
        assertThat(fetcher.fetches()).hasSize(1);
    }

    @Test
    void onlyAReadThatWaitsForAFetchCountsAWaitOnTheWan() {
        List<Cause> waits = new ArrayList<>();
        DataView view = new DataView(siteB.open("disk"), Dirty.RECORD, storeB, fetcher, Replicator.NONE, ReadCounter.NONE,
                (cause, nanos) -> waits.add(nanos > 0 ? cause : null), Runnable::run);
        assertThat(view.read(0, 1, ByteBuffer.allocate(BLOCK_SIZE))).isCompleted();
        assertThat(waits).as("a block current here").isEmpty();

        CompletableFuture<Void> read = view.read(2, 1, ByteBuffer.allocate(BLOCK_SIZE));
        assertThat(waits).as("still waiting").isEmpty();
        arrive(fetcher.fetches().get(0));
        assertThat(read).isCompleted();
        assertThat(waits).containsExactly(Cause.FETCH);
    }

    @Test
    void aReadThatContinuesASequentialStreamFetchesTheBlocksAfterItAhead() {
        DataView view = view(siteB.open("disk"), storeB);
        CompletableFuture<Void> first = view.read(1, 1, ByteBuffer.allocate(BLOCK_SIZE));
        arrive(fetcher.fetches().get(0));
        first.join();
        assertThat(fetcher.fetches()).extracting(Fetch::block).containsExactly(1L);

        CompletableFuture<Void> next = view.read(2, 1, ByteBuffer.allocate(BLOCK_SIZE));
        assertThat(fetcher.fetches()).extracting(Fetch::block).as("block 3 ahead of the read").containsExactly(1L, 3L, 2L);
        fetcher.fetches().subList(1, 3).forEach(this::arrive);
        next.join();

        assertThat(view.read(3, 1, ByteBuffer.allocate(BLOCK_SIZE))).as("arrived ahead").isCompleted();
        assertThat(fetcher.fetches()).hasSize(3);
    }

    @Test
    void aFetchedCommittedCopyReplacesAnyLocalCopyButThisSessionsOwnWrites() {
        ImageSession session = siteB.open("disk");
        view(session, storeB).read(2, 1, ByteBuffer.allocate(BLOCK_SIZE));
        Fetch fetch = fetcher.fetches().get(0);
        BlockStore.Copy committed = new BlockStore.Copy(2, versionAtA, null);

        long fenced = Version.compose(session.holdingEpoch() - 1, 99);
        assertThat(fenced).as("a fenced epoch's version can be larger than the committed one").isGreaterThan(versionAtA);
        assertThat(fetch.replace().accepts(committed, fenced)).isTrue();
        assertThat(fetch.replace().accepts(committed, Version.compose(1, 1))).isTrue();
        assertThat(fetch.replace().accepts(committed, Version.compose(session.holdingEpoch(), 1))).as("this session's write").isFalse();
        assertThat(fetch.replace().accepts(committed, versionAtA)).as("already here").isFalse();
    }

    @Test
    void aFailedFetchFailsTheReadWithItsError() {
        DataView view = view(siteB.open("disk"), storeB);
        CompletableFuture<Void> read = view.read(1, 1, ByteBuffer.allocate(BLOCK_SIZE));
        HeliotropeException unreachable = new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site 'a' does not answer");
        fetcher.fetches().get(0).future().completeExceptionally(unreachable);

        assertThatThrownBy(read::join).cause().isSameAs(unreachable);
    }

    @Test
    void aMixedRangeFetchesOnlyTheBlocksNotCurrentHere() {
        DataView view = view(siteB.open("disk"), storeB);
        ByteBuffer destination = ByteBuffer.allocate(6 * BLOCK_SIZE);
        CompletableFuture<Void> read = view.read(0, 6, destination);

        assertThat(fetcher.fetches()).extracting(Fetch::block).containsExactly(1L, 2L, 3L);
        fetcher.fetches().forEach(this::arrive);
        assertThat(read).isCompleted();
        byte[] bytes = destination.array();
        assertThat(Arrays.copyOfRange(bytes, 0, BLOCK_SIZE)).containsOnly(4);
        assertThat(Arrays.copyOfRange(bytes, BLOCK_SIZE, 4 * BLOCK_SIZE)).containsOnly(7);
        assertThat(Arrays.copyOfRange(bytes, 4 * BLOCK_SIZE, 6 * BLOCK_SIZE)).containsOnly(0);
    }

    @Test
    void aPartialWriteOverABlockNotCurrentHereMergesIntoItsFetchedCopy() {
        DefaultDeviceFactory devices = new DefaultDeviceFactory(storeB, fetcher, ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT);
        BlockDevice device = new ImageExports(siteB, devices, Runnable::run).open("disk").join();
        try {
            CompletableFuture<Void> write = device.write(2 * BLOCK_SIZE + 100, Unpooled.wrappedBuffer(new byte[10]), false);
            assertThat(write).isNotDone();
            arrive(fetcher.fetches().get(0));
            assertThat(write).isCompleted();

            ByteBuf block = device.read(2 * BLOCK_SIZE, BLOCK_SIZE).join();
            assertThat(block.getByte(99)).isEqualTo((byte) 7);
            assertThat(ByteBufUtil.getBytes(block, 100, 10)).containsOnly(0);
            assertThat(block.getByte(110)).isEqualTo((byte) 7);
            block.release();
        } finally {
            device.close();
        }
    }

    @Test
    void cacheBringsTheBlocksHeldElsewhereHere() {
        DefaultDeviceFactory devices = new DefaultDeviceFactory(storeB, fetcher, ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true,
                Runnable::run, UnpooledByteBufAllocator.DEFAULT);
        BlockDevice device = new ImageExports(siteB, devices, Runnable::run).open("disk").join();
        try {
            assertThat(device.canCache()).isTrue();
            CompletableFuture<Void> cached = device.cache(0, 8 * BLOCK_SIZE);
            assertThat(fetcher.fetches()).extracting(Fetch::block).containsExactly(1L, 2L, 3L);
            assertThat(cached).isNotDone();
            fetcher.fetches().forEach(this::arrive);
            assertThat(cached).isCompleted();
            assertThat(new Locality().blockStatus(device, 0, 8 * BLOCK_SIZE).join())
                    .containsExactly(new BlockDescriptor(4 * BLOCK_SIZE, Locality.HERE), new BlockDescriptor(4 * BLOCK_SIZE, Locality.ZERO));
        } finally {
            device.close();
        }
    }

    @Test
    void theLocalityContextShowsWhatIsCurrentHereWhatMustBeFetchedAndWhatReadsAsZeros() {
        DefaultDeviceFactory devices = new DefaultDeviceFactory(storeB, fetcher, ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT);
        BlockDevice device = new ImageExports(siteB, devices, Runnable::run).open("disk").join();
        try {
            assertThat(new Locality().blockStatus(device, 0, 8 * BLOCK_SIZE).join()).containsExactly(
                    new BlockDescriptor(BLOCK_SIZE, Locality.HERE),
                    new BlockDescriptor(3 * BLOCK_SIZE, Locality.ELSEWHERE),
                    new BlockDescriptor(4 * BLOCK_SIZE, Locality.ZERO));

            CompletableFuture<ByteBuf> read = device.read(2 * BLOCK_SIZE, BLOCK_SIZE);
            arrive(fetcher.fetches().get(0));
            read.join().release();
            assertThat(new Locality().blockStatus(device, BLOCK_SIZE + 10, 3 * BLOCK_SIZE).join()).containsExactly(
                    new BlockDescriptor(BLOCK_SIZE - 10, Locality.ELSEWHERE),
                    new BlockDescriptor(BLOCK_SIZE, Locality.HERE),
                    new BlockDescriptor(BLOCK_SIZE, Locality.ELSEWHERE),
                    new BlockDescriptor(10, Locality.ZERO));
        } finally {
            device.close();
        }
    }

    @Test
    void theBackgroundPullFetchesThroughTheViewAndHearsOfTheClientsOwnMissesOnly() {
        ImageSession session = siteB.open("disk");
        assertThat(session.elsewhereBlocks()).as("1 to 3; block 5 is a zero marker").isEqualTo(3);
        DataView view = view(session, storeB);
        List<List<GlobalBlock>> missed = new ArrayList<>();
        PullTarget[] target = new PullTarget[1];
        view.startBackground((pulled, through) -> {
            target[0] = through;
            return new Background() {
                @Override
                public void missed(List<GlobalBlock> blocks) {
                    missed.add(blocks);
                }

                @Override
                public void stop() {}
            };
        });

        CompletableFuture<Void> read = view.read(1, 1, ByteBuffer.allocate(BLOCK_SIZE));
        assertThat(missed).containsExactly(List.of(session.staleEntry(1)));
        arrive(fetcher.fetches().get(0));
        read.join();
        CompletableFuture<Void> next = view.read(2, 1, ByteBuffer.allocate(BLOCK_SIZE));
        assertThat(fetcher.fetches()).extracting(Fetch::block).as("block 3 read ahead").containsExactly(1L, 3L, 2L);
        assertThat(missed).as("read-ahead is not a miss").extracting(blocks -> blocks.get(0).block()).containsExactly(1L, 2L);
        assertThat(session.elsewhereBlocks()).isEqualTo(2);

        List<CompletableFuture<Void>> pulled = target[0].pull(List.of(session.staleEntry(2), session.staleEntry(3)));
        assertThat(fetcher.fetches().subList(3, 5)).extracting(Fetch::block, Fetch::background).containsExactly(tuple(2L, true), tuple(3L, true));
        assertThat(fetcher.fetches().get(3).replace()).as("the rule of every fetch of the view").isSameAs(fetcher.fetches().get(0).replace());
        view.write(3, filled(1, 5), Version.compose(session.epoch(), 1), false);
        assertThat(session.elsewhereBlocks()).as("a write here makes block 3 current").isEqualTo(1);
        fetcher.fetches().subList(1, 5).forEach(this::arrive);
        assertThat(pulled).allMatch(CompletableFuture::isDone);
        next.join();
        assertThat(session.elsewhereBlocks()).isZero();
        assertThat(session.staleEntry(2)).isNull();
        assertThat(session.staleEntry(5)).as("zero markers stay stale: nothing to fetch").isNotNull();
    }

    /** What a fetcher does: stores the holder's copy here, then completes. */
    private void arrive(Fetch fetch) {
        ByteBuffer copy = ByteBuffer.allocate(BLOCK_SIZE);
        storeA.read(storeA.image(fetch.image()).id(), fetch.block(), 1, copy);
        storeB.write(storeB.image(fetch.image()).id(), fetch.block(), copy.flip(), fetch.version(), Dirty.SKIP, false);
        fetch.future().complete(null);
    }

    private DataView view(ImageSession session, BlockStore store) {
        return new DataView(session, Dirty.RECORD, store, fetcher, Replicator.NONE, ReadCounter.NONE, WanWaits.NONE, Runnable::run);
    }

    private ControllerSessions sessions(String site, MemoryBlockStore store) {
        return new ControllerSessions(site, store, store.view(), controller.forSite(site), (image, opened) -> {}, scheduler, Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1));
    }

    private static ByteBuffer filled(int blocks, int value) {
        byte[] data = new byte[blocks * BLOCK_SIZE];
        Arrays.fill(data, (byte) value);
        return ByteBuffer.wrap(data);
    }
}
