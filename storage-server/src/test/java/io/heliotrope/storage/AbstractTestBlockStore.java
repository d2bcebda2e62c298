package io.heliotrope.storage;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockRun;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.stream.LongStream;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static io.heliotrope.storage.BlockStore.Dirty.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract every {@link BlockStore} keeps. */
public abstract class AbstractTestBlockStore {
    protected BlockStore store;

    protected abstract BlockStore createStore() throws Exception;

    /** Closes and opens the store again where it can; a store in memory stays as it is. */
    protected void reopen() throws Exception {
        // nothing to do: nothing outlives a memory store
    }

    @BeforeEach
    void open() throws Exception {
        store = createStore();
    }

    @AfterEach
    void close() {
        store.close();
    }

    protected static ByteBuffer blocks(int count, int fill, boolean direct) {
        ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(count * BLOCK_SIZE) : ByteBuffer.allocate(count * BLOCK_SIZE);
        for (int i = 0; i < count * BLOCK_SIZE; i++) {
            buffer.put((byte) (fill + i / BLOCK_SIZE));
        }
        return buffer.flip();
    }

    protected byte[] read(long imageId, long first, int count, boolean direct) {
        ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(count * BLOCK_SIZE) : ByteBuffer.allocate(count * BLOCK_SIZE);
        store.read(imageId, first, count, buffer);
        assertThat(buffer.remaining()).isZero();
        byte[] bytes = new byte[count * BLOCK_SIZE];
        buffer.flip().get(bytes);
        return bytes;
    }

    @Test
    void everyWholeGroupWriteReplacesWhatWritesAndZeroesGaveItsBlocksBefore() throws Exception {
        ImageInfo image = store.createImage("groups", 256 * BLOCK_SIZE);
        store.write(image.id(), 0, blocks(256, 1, false), 1, RECORD, false);
        List<Consumer<Long>> changesToOneBlock = List.of(
                version -> store.write(image.id(), 6, blocks(1, 200, false), version, RECORD, false),
                version -> store.zero(image.id(), 7, 1, version, RECORD, false),
                version -> store.zeroBlocks(image.id(), new long[] {8}, version, RECORD, false));
        long version = 2;
        for (Consumer<Long> change : changesToOneBlock) {
            change.accept(version++);
            store.write(image.id(), 0, blocks(256, (int) version, false), version, RECORD, false);
            assertThat(read(image.id(), 0, 256, false)).isEqualTo(blocks(256, (int) version, false).array());
            version++;
        }
        reopen();
        assertThat(read(image.id(), 0, 256, false)).isEqualTo(blocks(256, (int) version - 1, false).array());
    }

    @Test
    void createsListsAndRemovesImages() {
        ImageInfo b = store.createImage("b", 8 * BLOCK_SIZE);
        ImageInfo a = store.createImage("a", BLOCK_SIZE);
        assertThat(a.id()).isNotEqualTo(b.id());
        assertThat(store.listImages()).extracting(ImageInfo::name).containsExactly("a", "b");
        assertThat(store.image("b").sizeBytes()).isEqualTo(8 * BLOCK_SIZE);
        store.deleteImage("a");
        assertThat(store.listImages()).extracting(ImageInfo::name).containsExactly("b");
        assertThatThrownBy(() -> store.image("a")).hasMessage("image 'a' does not exist");
    }

    @Test
    void aCopyKeepsItsIdentityThroughResizesSessionsAndRestarts() throws Exception {
        UUID identity = UUID.randomUUID();
        ImageInfo copy = store.createImage("copy", BLOCK_SIZE, identity);
        store.resizeImage("copy", 2 * BLOCK_SIZE);
        store.beginSession(copy.id());
        reopen();
        assertThat(store.image("copy").identity()).isEqualTo(identity);
        assertThat(store.createImage("standalone", BLOCK_SIZE).identity()).isNull();
    }

    @Test
    void refusesBadNamesSizesAndDuplicates() {
        store.createImage("vm-1.disk_0", BLOCK_SIZE);
        assertThatThrownBy(() -> store.createImage("vm-1.disk_0", BLOCK_SIZE))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("image 'vm-1.disk_0' already exists")
                .satisfies(e -> assertThat(((HeliotropeException) e).code()).isEqualTo(ErrorCode.IMAGE_EXISTS));
        assertThatThrownBy(() -> store.createImage("../etc", BLOCK_SIZE)).hasMessageStartingWith("invalid image name '../etc'");
        assertThatThrownBy(() -> store.createImage("Disk", BLOCK_SIZE)).hasMessageStartingWith("invalid image name 'Disk'");
        assertThatThrownBy(() -> store.createImage("odd", 1000)).hasMessageStartingWith("invalid image size 1000");
        assertThatThrownBy(() -> store.createImage("zero", 0)).hasMessageStartingWith("invalid image size 0");
        assertThatThrownBy(() -> store.deleteImage("missing")).hasMessage("image 'missing' does not exist");
    }

    @Test
    void unwrittenBlocksReadAsZeros() {
        ImageInfo image = store.createImage("fresh", 4 * BLOCK_SIZE);
        assertThat(read(image.id(), 0, 4, false)).containsOnly(0);
        assertThat(read(image.id(), 2, 1, true)).containsOnly(0);
        assertThat(store.allocation(image.id(), 0, 4)).containsExactly(new BlockRun(0, 4, BlockState.UNWRITTEN));
    }

    @Test
    void writesAndReadsBackFromHeapAndDirectBuffers() {
        ImageInfo image = store.createImage("data", 16 * BLOCK_SIZE);
        store.write(image.id(), 1, blocks(3, 10, false), 1, RECORD, false);
        store.write(image.id(), 8, blocks(2, 50, true), 2, RECORD, true);
        byte[] all = read(image.id(), 0, 16, false);
        assertThat(Arrays.copyOfRange(all, 0, BLOCK_SIZE)).containsOnly(0);
        assertThat(Arrays.copyOfRange(all, BLOCK_SIZE, 2 * BLOCK_SIZE)).containsOnly(10);
        assertThat(Arrays.copyOfRange(all, 3 * BLOCK_SIZE, 4 * BLOCK_SIZE)).containsOnly(12);
        assertThat(Arrays.copyOfRange(all, 9 * BLOCK_SIZE, 10 * BLOCK_SIZE)).containsOnly(51);
        assertThat(read(image.id(), 9, 1, true)).containsOnly(51);
        assertThat(store.allocation(image.id(), 0, 16)).containsExactly(
                new BlockRun(0, 1, BlockState.UNWRITTEN), new BlockRun(1, 3, BlockState.DATA),
                new BlockRun(4, 4, BlockState.UNWRITTEN), new BlockRun(8, 2, BlockState.DATA),
                new BlockRun(10, 6, BlockState.UNWRITTEN));
        assertThat(store.usage(image.id())).isEqualTo(new BlockStore.ImageUsage(5, 0));
    }

    @Test
    void readsBackAWriteOfMoreBlocksThanOneBatch() {
        ImageInfo image = store.createImage("large", 1024 * BLOCK_SIZE);
        store.write(image.id(), 100, blocks(600, 0, true), 1, RECORD, false);
        byte[] all = read(image.id(), 100, 600, true);
        for (int block = 0; block < 600; block++) {
            assertThat(all[block * BLOCK_SIZE + 17]).as("block %s", block).isEqualTo((byte) block);
        }
        assertThat(store.usage(image.id()).dataBlocks()).isEqualTo(600);
    }

    @Test
    void zeroingLeavesMarkersOnlyWhereThereWasData() {
        ImageInfo image = store.createImage("zeros", 8 * BLOCK_SIZE);
        store.write(image.id(), 2, blocks(2, 1, false), 1, RECORD, false);
        store.zero(image.id(), 0, 8, 2, RECORD, true);
        assertThat(read(image.id(), 0, 8, false)).containsOnly(0);
        assertThat(store.allocation(image.id(), 0, 8)).containsExactly(
                new BlockRun(0, 2, BlockState.UNWRITTEN), new BlockRun(2, 2, BlockState.ZERO), new BlockRun(4, 4, BlockState.UNWRITTEN));
        assertThat(store.usage(image.id())).isEqualTo(new BlockStore.ImageUsage(0, 2));
        store.write(image.id(), 3, blocks(1, 9, true), 3, RECORD, false);
        assertThat(read(image.id(), 3, 1, false)).containsOnly(9);
    }

    @Test
    void imagesDoNotSeeEachOthersBlocks() {
        ImageInfo first = store.createImage("first", 2 * BLOCK_SIZE);
        ImageInfo second = store.createImage("second", 2 * BLOCK_SIZE);
        store.write(first.id(), 1, blocks(1, 7, false), 1, RECORD, false);
        assertThat(read(second.id(), 0, 2, false)).containsOnly(0);
        store.deleteImage("first");
        ImageInfo again = store.createImage("first", 2 * BLOCK_SIZE);
        assertThat(read(again.id(), 0, 2, false)).containsOnly(0);
    }

    @Test
    void shrinkingDropsBlocksBeyondTheEnd() {
        ImageInfo image = store.createImage("shrink", 4 * BLOCK_SIZE);
        store.write(image.id(), 0, blocks(4, 1, false), 1, RECORD, false);
        assertThat(store.resizeImage("shrink", 2 * BLOCK_SIZE).sizeBytes()).isEqualTo(2 * BLOCK_SIZE);
        store.resizeImage("shrink", 4 * BLOCK_SIZE);
        assertThat(read(image.id(), 0, 1, false)).containsOnly(1);
        assertThat(read(image.id(), 2, 2, false)).containsOnly(0);
        assertThat(store.usage(image.id()).dataBlocks()).isEqualTo(2);
    }

    @Test
    void sessionEpochsOnlyGrow() {
        ImageInfo image = store.createImage("epochs", BLOCK_SIZE);
        long first = store.beginSession(image.id());
        long second = store.beginSession(image.id());
        assertThat(second).isGreaterThan(first).isGreaterThan(0);
    }

    @Test
    void tracksDirtyBlocksUntilTheirVersionIsFlushed() {
        ImageInfo image = store.createImage("dirty", 8 * BLOCK_SIZE);
        store.write(image.id(), 1, blocks(3, 1, false), 1, RECORD, false);
        store.zero(image.id(), 2, 1, 2, RECORD, false);
        List<BlockVersion> flushed = store.dirtyBlocks(image.id());
        assertThat(flushed).containsExactly(
                new BlockVersion(1, 1, BlockState.DATA), new BlockVersion(2, 2, BlockState.ZERO), new BlockVersion(3, 1, BlockState.DATA));

        store.write(image.id(), 3, blocks(1, 9, false), 3, RECORD, false);
        store.markFlushed(image.id(), flushed);

        assertThat(store.dirtyBlocks(image.id())).containsExactly(new BlockVersion(3, 3, BlockState.DATA));
    }

    @Test
    void zeroBlocksMarksExactlyTheGivenBlocksEvenUnwrittenOnes() {
        ImageInfo image = store.createImage("marks", 8 * BLOCK_SIZE);
        store.write(image.id(), 0, blocks(1, 5, false), 1, RECORD, false);
        store.zeroBlocks(image.id(), new long[] {0, 6}, 2, RECORD, true);

        List<BlockVersion> visited = new ArrayList<>();
        store.forEachBlock(image.id(), visited::add);
        assertThat(visited).containsExactly(new BlockVersion(0, 2, BlockState.ZERO), new BlockVersion(6, 2, BlockState.ZERO));
        assertThat(store.dirtyBlocks(image.id())).isEqualTo(visited);
        assertThat(read(image.id(), 0, 8, false)).containsOnly(0);
    }

    /** A standalone site's writes, and copies that come from peers, are never dirty; writes beside them that record it are. */
    @Test
    void writesAndZeroesThatSkipTheDirtySetNeverEnterIt() throws Exception {
        ImageInfo image = store.createImage("skip", 512 * BLOCK_SIZE);
        store.write(image.id(), 0, blocks(1, 1, false), 1, SKIP, false);
        store.write(image.id(), 256, blocks(256, 1, true), 2, SKIP, false);
        CompletableFuture<Void> skipped = store.queueWrite(image.id(), 2, blocks(1, 1, false), 3, SKIP, false);
        CompletableFuture<Void> recorded = store.queueWrite(image.id(), 3, blocks(1, 1, false), 4, RECORD, false);
        store.runQueuedWrites();
        CompletableFuture.allOf(skipped, recorded).join();
        store.write(image.id(), 0, blocks(1, 9, false), 5, SKIP, false);
        store.zero(image.id(), 256, 256, 6, SKIP, false);
        store.zeroBlocks(image.id(), new long[] {5}, 7, SKIP, true);

        assertThat(store.dirtyBlocks(image.id())).containsExactly(new BlockVersion(3, 4, BlockState.DATA));
        assertThat(store.usage(image.id())).isEqualTo(new BlockStore.ImageUsage(3, 257));
        reopen();
        assertThat(store.dirtyBlocks(image.id())).containsExactly(new BlockVersion(3, 4, BlockState.DATA));
        assertThat(read(image.id(), 0, 1, false)).containsOnly(9);
    }

    @Test
    void readsCopiesWithTheVersionsTheirDataWasWrittenWith() {
        long id = store.createImage("copies", 8 * BLOCK_SIZE).id();
        store.write(id, 1, blocks(2, 10, false), 7, RECORD, false);
        store.zero(id, 2, 1, 8, RECORD, false);

        ByteBuffer destination = ByteBuffer.allocate(3 * BLOCK_SIZE);
        assertThat(store.readCopies(id, new long[] {1, 2, 5}, destination)).containsExactly(
                new BlockVersion(1, 7, BlockState.DATA), new BlockVersion(2, 8, BlockState.ZERO), new BlockVersion(5, 0, BlockState.UNWRITTEN));
        assertThat(destination.position()).isEqualTo(3 * BLOCK_SIZE);
        assertThat(Arrays.copyOf(destination.array(), BLOCK_SIZE)).isEqualTo(Arrays.copyOf(blocks(1, 10, false).array(), BLOCK_SIZE));
        assertThat(Arrays.copyOfRange(destination.array(), BLOCK_SIZE, 3 * BLOCK_SIZE)).containsOnly(0);
    }

    @Test
    void storesACopyOnlyWhereItsRuleAcceptsTheLocalVersionAndNeverAsDirty() throws Exception {
        long id = store.createImage("copies", 8 * BLOCK_SIZE).id();
        store.write(id, 0, blocks(1, 1, false), 20, RECORD, false);
        store.write(id, 1, blocks(1, 2, false), 5, SKIP, false);

        boolean[] stored = store.storeCopies(id, List.of(
                new BlockStore.Copy(0, 10, blocks(1, 30, false)),
                new BlockStore.Copy(1, 10, blocks(1, 31, true)),
                new BlockStore.Copy(2, 10, blocks(1, 32, false)),
                new BlockStore.Copy(3, 10, null)), BlockStore.CopyRule.NEWER, true);

        assertThat(stored).containsExactly(false, true, true, true);
        assertThat(read(id, 0, 1, false)).isEqualTo(blocks(1, 1, false).array());
        assertThat(read(id, 1, 1, false)).isEqualTo(blocks(1, 31, false).array());
        assertThat(read(id, 2, 1, false)).isEqualTo(blocks(1, 32, false).array());
        assertThat(store.allocation(id, 3, 1)).containsExactly(new BlockRun(3, 1, BlockState.ZERO));
        assertThat(store.dirtyBlocks(id)).containsExactly(new BlockVersion(0, 20, BlockState.DATA));
        reopen();
        assertThat(store.readCopies(id, new long[] {0, 1, 2, 3}, ByteBuffer.allocate(4 * BLOCK_SIZE))).extracting(BlockVersion::version)
                .containsExactly(20L, 10L, 10L, 10L);
    }

    /** Copies of one block in one call are checked in turn, each against what the ones stored before it left. */
    @Test
    void copiesOfOneBlockInOneCallAreCheckedInTurnAndTheLastStoredStays() throws Exception {
        long id = store.createImage("repeats", 8 * BLOCK_SIZE).id();
        boolean[] stored = store.storeCopies(id, List.of(
                new BlockStore.Copy(5, 2, blocks(1, 1, false)),
                new BlockStore.Copy(5, 3, null),
                new BlockStore.Copy(6, 2, null),
                new BlockStore.Copy(5, 1, blocks(1, 2, false)),
                new BlockStore.Copy(6, 3, blocks(1, 3, true))), BlockStore.CopyRule.NEWER, false);

        assertThat(stored).containsExactly(true, true, true, false, true);
        reopen();
        ByteBuffer destination = ByteBuffer.allocate(2 * BLOCK_SIZE);
        assertThat(store.readCopies(id, new long[] {5, 6}, destination)).containsExactly(
                new BlockVersion(5, 3, BlockState.ZERO), new BlockVersion(6, 3, BlockState.DATA));
        assertThat(destination.array()).isEqualTo(ByteBuffer.allocate(2 * BLOCK_SIZE).put(BLOCK_SIZE, blocks(1, 3, false), 0, BLOCK_SIZE).array());
    }

    @Test
    void aCopyStoredBesideConcurrentWritesNeverHidesANewerOne() throws Exception {
        long id = store.createImage("race", 64 * BLOCK_SIZE).id();
        CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> {
            for (int round = 1; round <= 200; round++) {
                store.write(id, round % 64, blocks(1, round, false), 1_000 + round, RECORD, false);
            }
        });
        try {
            for (int round = 1; round <= 200; round++) {
                store.storeCopies(id, List.of(new BlockStore.Copy(round % 64, round, blocks(1, 0, false))), BlockStore.CopyRule.NEWER, false);
            }
        } finally {
            // The store closes after the test: a write still running into a closed RocksDB would crash the JVM.
            writes.get();
        }

        List<BlockVersion> copies = store.readCopies(id, LongStream.range(0, 64).toArray(), ByteBuffer.allocate(64 * BLOCK_SIZE));
        assertThat(copies).allSatisfy(copy -> assertThat(copy.version()).isGreaterThan(1_000));
    }

    /**
     * Random writes, zeroes and resizes, from single blocks to several whole groups of 256
     * (which a store may index as one entry), checked after each step against a plain model
     * of every block's version, state and data.
     */
    @Test
    void writesOfEverySizeAndAlignmentMatchAModelOfTheImage() throws Exception {
        ImageModel model = new ImageModel();
        int size = model.size;
        long[] versions = model.versions;
        BlockState[] states = model.states;
        ImageInfo image = store.createImage("model", (long) size * BLOCK_SIZE);
        TreeMap<Long, BlockVersion> dirty = new TreeMap<>();
        Random random = new Random(42);
        int[] lengths = {1, 3, 255, 256, 257, 512, 600, size};
        for (long version = 1; version <= 120; version++) {
            int length = Math.min(size, lengths[random.nextInt(lengths.length)]);
            int first = random.nextBoolean() ? random.nextInt(size - length + 1) : random.nextInt((size - length) / 256 + 1) * 256;
            switch (random.nextInt(6)) {
                case 0, 1, 2 -> {
                    int fill = random.nextInt(256);
                    store.write(image.id(), first, blocks(length, fill, random.nextBoolean()), version, RECORD, false);
                    model.wrote(first, length, version, fill);
                    for (int block = first; block < first + length; block++) {
                        dirty.put((long) block, new BlockVersion(block, version, BlockState.DATA));
                    }
                }
                case 3 -> {
                    store.zero(image.id(), first, length, version, RECORD, false);
                    for (int block = first; block < first + length; block++) {
                        if (states[block] == BlockState.DATA) {
                            versions[block] = version;
                            states[block] = BlockState.ZERO;
                            dirty.put((long) block, new BlockVersion(block, version, BlockState.ZERO));
                        }
                    }
                }
                case 4 -> {
                    long[] marked = random.longs(5, 0, size).distinct().sorted().toArray();
                    store.zeroBlocks(image.id(), marked, version, RECORD, false);
                    for (long block : marked) {
                        versions[(int) block] = version;
                        states[(int) block] = BlockState.ZERO;
                        dirty.put(block, new BlockVersion(block, version, BlockState.ZERO));
                    }
                }
                default -> {
                    int cut = random.nextInt(size);
                    store.resizeImage("model", (long) cut * BLOCK_SIZE);
                    store.resizeImage("model", (long) size * BLOCK_SIZE);
                    Arrays.fill(versions, cut, size, 0);
                    Arrays.fill(states, cut, size, BlockState.UNWRITTEN);
                    dirty.tailMap((long) cut).clear();
                }
            }
            if (version % 10 == 0) {
                reopen();
            }
            assertMatchesModel(image.id(), model, "after step " + version);
        }
        assertThat(store.dirtyBlocks(image.id())).containsExactlyElementsOf(dirty.values());
    }

    /**
     * Writes queued together, some over blocks an earlier one in the batch wrote, some of
     * whole groups, some asking for a sync, end as if run one after another in the order
     * queued; one to an image that does not exist fails alone.
     */
    @Test
    void queuedWritesEndAsIfRunInTurnAndOneThatFailsFailsAlone() throws Exception {
        ImageModel model = new ImageModel();
        int size = model.size;
        ImageInfo image = store.createImage("queued", (long) size * BLOCK_SIZE);
        Random random = new Random(7);
        int[] lengths = {1, 1, 3, 256, 300};
        long version = 0;
        for (int round = 1; round <= 30; round++) {
            List<CompletableFuture<Void>> queued = new ArrayList<>();
            CompletableFuture<Void> unknownImage = null;
            int previousFirst = 0;
            for (int i = 0; i < 8; i++) {
                if (i == round % 8) {
                    unknownImage = store.queueWrite(image.id() + 1000, 0, blocks(1, 1, false), ++version, RECORD, false);
                    continue;
                }
                int length = lengths[random.nextInt(lengths.length)];
                int first = random.nextInt(3) == 0 ? Math.min(previousFirst, size - length)
                        : random.nextBoolean() ? random.nextInt(size - length + 1) : random.nextInt((size - length) / 256 + 1) * 256;
                int fill = random.nextInt(256);
                queued.add(store.queueWrite(image.id(), first, blocks(length, fill, random.nextBoolean()), ++version, RECORD, random.nextInt(8) == 0));
                model.wrote(first, length, version, fill);
                previousFirst = first;
            }
            store.runQueuedWrites();
            assertThat(CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new))).succeedsWithin(Duration.ofSeconds(10));
            assertThat(unknownImage).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                    .havingCause().isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.IMAGE_NOT_FOUND));
            if (round % 10 == 0) {
                reopen();
            }
            assertMatchesModel(image.id(), model, "after round " + round);
        }
    }

    /** What a store should hold of an image of a few groups and a part: each block's version, state and data. */
    private static final class ImageModel {
        final int size = 3 * 256 + 37;
        final long[] versions = new long[size];
        final BlockState[] states = new BlockState[size];
        final byte[] fills = new byte[size];

        ImageModel() {
            Arrays.fill(states, BlockState.UNWRITTEN);
        }

        /** Blocks written with {@link #blocks}{@code (length, fill, ...)}. */
        void wrote(int first, int length, long version, int fill) {
            for (int block = first; block < first + length; block++) {
                versions[block] = version;
                states[block] = BlockState.DATA;
                fills[block] = (byte) (fill + block - first);
            }
        }
    }

    private void assertMatchesModel(long imageId, ImageModel model, String when) {
        int size = model.size;
        long[] versions = model.versions;
        BlockState[] states = model.states;
        byte[] fills = model.fills;
        List<BlockVersion> expected = new ArrayList<>();
        List<BlockRun> runs = new ArrayList<>();
        long dataBlocks = 0;
        for (int block = 0; block < size; block++) {
            BlockRun.append(runs, block, 1, states[block]);
            if (states[block] != BlockState.UNWRITTEN) {
                expected.add(new BlockVersion(block, versions[block], states[block]));
                dataBlocks += states[block] == BlockState.DATA ? 1 : 0;
            }
        }
        List<BlockVersion> visited = new ArrayList<>();
        store.forEachBlock(imageId, visited::add);
        assertThat(visited).as(when).containsExactlyElementsOf(expected);
        assertThat(store.allocation(imageId, 0, size)).as(when).containsExactlyElementsOf(runs);
        assertThat(store.usage(imageId)).as(when).isEqualTo(new BlockStore.ImageUsage(dataBlocks, expected.size() - dataBlocks));
        byte[] all = read(imageId, 0, size, false);
        for (int block = 0; block < size; block++) {
            byte expectedByte = states[block] == BlockState.DATA ? fills[block] : 0;
            assertThat(all[block * BLOCK_SIZE + BLOCK_SIZE - 1]).as("%s: block %s", when, block).isEqualTo(expectedByte);
            assertThat(read(imageId, block, 1, true)[0]).as("%s: block %s alone", when, block).isEqualTo(expectedByte);
        }
    }
}
