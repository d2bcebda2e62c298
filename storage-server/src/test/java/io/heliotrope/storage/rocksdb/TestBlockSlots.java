package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.ImageInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestBlockSlots {
    @TempDir
    Path directory;

    private static ByteBuffer block(int value) {
        return filled(BLOCK_SIZE, value);
    }

    static ByteBuffer filled(int length, int value) {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            buffer.put((byte) value);
        }
        return buffer.flip();
    }

    static ByteBuffer read(RocksBlockStore store, long imageId, long block, int count) {
        ByteBuffer buffer = ByteBuffer.allocate(count * BLOCK_SIZE);
        store.read(imageId, block, count, buffer);
        return buffer.flip();
    }

    private Path blockFile(long imageId) {
        return directory.resolve("blocks").resolve(imageId + ".blocks");
    }

    @Test
    void groupsSlotsSoBlocksWrittenTogetherLieTogether() {
        assertThat(BlockFiles.offset(0, 0)).isZero();
        assertThat(BlockFiles.offset(255, 0)).isEqualTo(255L * BLOCK_SIZE);
        assertThat(BlockFiles.offset(0, 1)).isEqualTo(256L * BLOCK_SIZE);
        assertThat(BlockFiles.offset(255, 1)).isEqualTo(511L * BLOCK_SIZE);
        assertThat(BlockFiles.offset(256, 0)).isEqualTo(512L * BLOCK_SIZE);
    }

    @Test
    void aSlotHoldsDataOnlyOnceACopyWasWrittenThereSoOnlyThenAWriteMayGoThroughTheMapping() {
        // Block 5 has data in slot 0, block 6 a zero marker in slot 1 that never held data; block 7 has no entry.
        FreeSlots slots = new FreeSlots((image, first, count, found) -> {
            found.visit(5, 0, true);
            found.visit(6, 1, false);
        });
        assertThat(slots.next(1, 5)).isEqualTo(1);
        assertThat(slots.nextHeldData(1, 5)).as("slot 1 of block 5 is not known to hold anything").isFalse();
        slots.wrote(1, 5, 1);
        assertThat(slots.nextHeldData(1, 5)).as("slot 0 of block 5 held the loaded copy").isTrue();

        slots.wrote(1, 6, 0);
        assertThat(slots.nextHeldData(1, 6)).as("block 6's zero marker held no data").isFalse();

        assertThat(slots.nextHeldData(1, 7)).isFalse();
        slots.wrote(1, 7, 0);
        assertThat(slots.nextHeldData(1, 7)).isFalse();
        slots.wrote(1, 7, 1);
        assertThat(slots.next(1, 7)).isZero();
        assertThat(slots.nextHeldData(1, 7)).isTrue();
    }

    @Test
    void onlyOnTmpfsWritesGoThroughTheMappings() {
        assertThat(BlockFiles.mapsWrites("btrfs")).isFalse();
        assertThat(BlockFiles.mapsWrites("zfs")).isFalse();
        assertThat(BlockFiles.mapsWrites("ext4")).isFalse();
        assertThat(BlockFiles.mapsWrites("tmpfs")).isTrue();
    }

    @Test
    void aBlockRewrittenBeforeASyncGoesInlineSoNoSlotACrashCouldBringBackIsOverwritten() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 64 * BLOCK_SIZE);
            for (int block = 0; block < 64; block++) {
                store.write(image.id(), block, block(block), 1, RECORD, false);
            }
            store.sync();
            long before = store.syncs();
            store.write(image.id(), 7, block(100), 2, RECORD, false);
            store.write(image.id(), 7, block(101), 3, RECORD, false);
            store.write(image.id(), 7, block(102), 4, RECORD, false);
            assertThat(store.syncs()).as("rewrites need no sync").isEqualTo(before);
            assertThat(fileHolds(image.id(), 7, 0, 7)).as("the synced copy, where a crash would bring the index back to").isTrue();
            assertThat(fileHolds(image.id(), 7, 1, 100)).as("the first copy since the sync, which a crash may also bring back").isTrue();
            assertThat(read(store, image.id(), 6, 3).array()).startsWith(block(6).array()).endsWith(block(8).array())
                    .containsSequence(block(102).array());

            store.zero(image.id(), 8, 1, 2, RECORD, false);
            store.write(image.id(), 8, block(103), 3, RECORD, false);
            store.write(image.id(), 9, block(104), 2, RECORD, false);
            store.zero(image.id(), 9, 1, 3, RECORD, false);
            assertThat(store.syncs()).isEqualTo(before);
            assertThat(read(store, image.id(), 8, 2).array()).startsWith(block(103).array()).endsWith(block(0).array());

            store.sync();
            store.write(image.id(), 7, block(105), 5, RECORD, false);
            assertThat(fileHolds(image.id(), 7, 0, 105)).as("after a sync the inline copy is the synced one: a slot takes the write").isTrue();
        }
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            long id = store.image("disk").id();
            assertThat(read(store, id, 7, 3).array()).startsWith(block(105).array()).containsSequence(block(103).array()).endsWith(block(0).array());
        }
    }

    @Test
    void inlineCopiesSurviveAReopenAndGiveWayToTheNextWrite() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 512 * BLOCK_SIZE);
            store.write(image.id(), 3, block(1), 1, RECORD, false);
            store.write(image.id(), 3, block(2), 2, RECORD, false);
        }
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            long id = store.image("disk").id();
            assertThat(read(store, id, 3, 1)).isEqualTo(block(2));
            store.write(id, 3, block(3), 3, RECORD, false);
            store.write(id, 4, block(4), 3, RECORD, false);
            store.write(id, 4, block(5), 4, RECORD, false);
            assertThat(read(store, id, 0, 256).slice(3 * BLOCK_SIZE, 2 * BLOCK_SIZE)).isEqualTo(ByteBuffer.allocate(2 * BLOCK_SIZE).put(block(3)).put(block(5)).flip());
            long syncs = store.syncs();
            store.write(id, 0, ByteBuffer.allocate(256 * BLOCK_SIZE), 5, RECORD, false);
            assertThat(store.syncs()).as("a whole group over blocks written since the sync syncs first").isEqualTo(syncs + 1);
            assertThat(read(store, id, 4, 1)).isEqualTo(ByteBuffer.allocate(BLOCK_SIZE));
        }
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            assertThat(read(store, store.image("disk").id(), 0, 256)).isEqualTo(ByteBuffer.allocate(256 * BLOCK_SIZE));
        }
    }

    @Test
    void aSyncThatArrivesAfterAnotherEndedSyncsAgain() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 16 * BLOCK_SIZE);
            long before = store.syncs();
            store.sync();
            store.write(image.id(), 3, block(3), 1, RECORD, false);
            store.sync();
            assertThat(store.syncs()).as("only a sync that starts after a FLUSH arrives may stand in for it").isEqualTo(before + 2);
        }
    }

    /** Whether the first byte of {@code slot} of {@code block} in the image's file is {@code value}. */
    private boolean fileHolds(long imageId, long block, int slot, int value) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(blockFile(imageId).toFile(), "r")) {
            file.seek(BlockFiles.offset(block, slot));
            return file.read() == value;
        }
    }

    @Test
    void blocksWrittenTwiceInOneQueuedBatchOrSinceTheLastSyncGoInlineWithoutASync() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 768 * BLOCK_SIZE);
            for (int block = 0; block < 8; block++) {
                store.write(image.id(), block, block(block), 1, RECORD, false);
            }
            long before = store.syncs();
            List<CompletableFuture<Void>> queued = List.of(
                    store.queueWrite(image.id(), 20, block(20), 2, RECORD, false),
                    store.queueWrite(image.id(), 21, block(21), 2, RECORD, false));
            assertThat(queued).noneMatch(CompletableFuture::isDone);
            store.runQueuedWrites();
            assertThat(queued).allMatch(write -> write.isDone() && !write.isCompletedExceptionally());

            store.queueWrite(image.id(), 40, block(40), 3, RECORD, false);
            store.queueWrite(image.id(), 5, block(41), 3, RECORD, false);
            store.queueWrite(image.id(), 40, block(42), 4, RECORD, false);
            store.runQueuedWrites();
            store.queueWrite(image.id(), 50, block(50), 5, RECORD, false);
            store.queueWrite(image.id(), 50, block(51), 6, RECORD, false);
            store.runQueuedWrites();
            assertThat(store.syncs()).as("rewrites of blocks written since the last sync go inline").isEqualTo(before);

            // A whole group and a block of it in one batch, either way round.
            store.queueWrite(image.id(), 256, ByteBuffer.allocate(256 * BLOCK_SIZE), 8, RECORD, false);
            store.queueWrite(image.id(), 259, block(33), 9, RECORD, false);
            store.runQueuedWrites();
            assertThat(store.syncs()).as("the group was committed before the block went inline").isEqualTo(before);
            store.queueWrite(image.id(), 600, block(34), 10, RECORD, false);
            store.queueWrite(image.id(), 512, ByteBuffer.allocate(256 * BLOCK_SIZE), 11, RECORD, false);
            store.runQueuedWrites();
            assertThat(store.syncs()).as("the block was committed, so the group over it synced first").isEqualTo(before + 1);
            assertThat(read(store, image.id(), 256, 512)).isEqualTo(ByteBuffer.allocate(512 * BLOCK_SIZE).put(3 * BLOCK_SIZE, block(33), 0, BLOCK_SIZE));
            before = store.syncs();

            CompletableFuture<Void> beforeSync = store.queueWrite(image.id(), 60, block(60), 7, RECORD, false);
            store.sync();
            assertThat(beforeSync).as("a sync runs the queued writes first").isDone();
            assertThat(store.syncs()).isEqualTo(before + 1);
            for (int[] expected : new int[][] {{5, 41}, {20, 20}, {21, 21}, {40, 42}, {50, 51}, {60, 60}}) {
                assertThat(read(store, image.id(), expected[0], 1).array()).as("block %s", expected[0]).isEqualTo(block(expected[1]).array());
            }
        }
    }

    /**
     * Each round, four threads write, three of them by queueing each write and then running
     * the queue, and wait for their writes before the next round. A thread whose run finds the lock
     * taken leaves its writes to the holder, which must run them before it is done: nobody
     * else runs a queue until the round ends. The writes sync, so holders take long.
     */
    @Test
    void writesQueuedOnSeveralThreadsAllRunWhicheverThreadRunsThem() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        CyclicBarrier endOfRound = new CyclicBarrier(4);
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("shared", 4 * 64 * BLOCK_SIZE);
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int thread = 0; thread < 4; thread++) {
                int first = thread * 64;
                boolean direct = thread == 0;
                writers.add(CompletableFuture.runAsync(() -> {
                    try {
                        for (int round = 1; round <= 200; round++) {
                            List<CompletableFuture<Void>> queued = new ArrayList<>();
                            for (int block = first; block < first + 64; block += 8) {
                                if (direct) {
                                    store.write(image.id(), block + round % 8, block(block + round), round, RECORD, true);
                                } else {
                                    queued.add(store.queueWrite(image.id(), block + round % 8, block(block + round), round, RECORD, true));
                                    store.runQueuedWrites();
                                }
                            }
                            CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
                            endOfRound.await(10, TimeUnit.SECONDS);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException("a queued write was left behind", e);
                    }
                }, threads));
            }
            assertThat(CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new))).succeedsWithin(Duration.ofSeconds(60));
            ByteBuffer all = read(store, image.id(), 0, 4 * 64);
            for (int block = 0; block < 4 * 64; block++) {
                int lastRound = 200 - (200 - block % 8) % 8;
                assertThat(all.get(block * BLOCK_SIZE)).as("block %s", block).isEqualTo((byte) (block - block % 8 + lastRound));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void syncsTheBlockFilesBeforeRocksDbFlushesTheIndexToSyncedFiles() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 16 * BLOCK_SIZE);
            store.write(image.id(), 3, block(3), 1, RECORD, false);
            assertThat(store.flushIndexLeavesUnsyncedData()).isFalse();
            assertThat(read(store, image.id(), 3, 1).get(0)).isEqualTo((byte) 3);
        }
    }

    @Test
    void aCatalogChangeThatSyncsTheWalSyncsTheBlockDataItsIndexEntriesPointAtFirst() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 16 * BLOCK_SIZE);
            store.write(image.id(), 3, block(3), 1, RECORD, false);
            assertThat(store.blockDataUnsynced()).isTrue();
            store.beginSession(image.id());
            assertThat(store.blockDataUnsynced()).as("the WAL sync took block 3's index entry along").isFalse();
        }
    }

    @Test
    void runsThatCrossFromOneMappedGibibyteOfTheFileToTheNextReadBack() {
        long first = 511 * 256;
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            // Slot 1 of group 511 ends where the file's second GiB, and slot 0 of group 512, begins.
            ImageInfo image = store.createImage("large", 600L << 20);
            assertThat(BlockFiles.offset(first + 255, 1) + BLOCK_SIZE).isEqualTo(1L << 30).isEqualTo(BlockFiles.offset(first + 256, 0));
            ByteBuffer group = ByteBuffer.allocate(256 * BLOCK_SIZE);
            store.write(image.id(), first, group, 1, RECORD, false);
            ByteBuffer data = ByteBuffer.allocate(512 * BLOCK_SIZE);
            for (int i = 0; i < 512; i++) {
                data.put(block(i));
            }
            store.write(image.id(), first, data.flip(), 2, RECORD, false);
            ByteBuffer all = read(store, image.id(), first, 512);
            for (int i = 0; i < 512; i++) {
                assertThat(all.get(i * BLOCK_SIZE + BLOCK_SIZE - 1)).as("block %s", first + i).isEqualTo((byte) i);
            }
        }
    }

    @Test
    void alternatesSlotsAndReadsRunsAcrossThem() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 512 * BLOCK_SIZE);
            ByteBuffer first = ByteBuffer.allocate(300 * BLOCK_SIZE);
            for (int i = 0; i < 300; i++) {
                first.put(block(i));
            }
            store.write(image.id(), 0, first.flip(), 1, RECORD, false);
            store.sync();
            // Every other block moves to slot 1; a run of 300 blocks now reads as many pieces.
            for (int block = 0; block < 300; block += 2) {
                store.write(image.id(), block, block(block + 1), 2, RECORD, false);
            }
            ByteBuffer all = read(store, image.id(), 0, 300);
            for (int i = 0; i < 300; i++) {
                assertThat(all.get(i * BLOCK_SIZE)).as("block %s", i).isEqualTo((byte) (i % 2 == 0 ? i + 1 : i));
            }
            assertThat(Files.size(blockFile(image.id()))).as("both slots of the image's two groups").isEqualTo(BlockFiles.length(512)).isEqualTo(4 << 20);
        }
    }

    @Test
    void reportsDataThatFailsItsChecksum() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", BLOCK_SIZE);
            store.write(image.id(), 0, block(7), 1, RECORD, true);
            try (RandomAccessFile file = new RandomAccessFile(blockFile(image.id()).toFile(), "rw")) {
                file.seek(100);
                file.write(8);
            }
            assertThatThrownBy(() -> read(store, image.id(), 0, 1))
                    .hasMessage("image %d: data of block 0 at offset 0 of its block file fails its checksum", image.id());
        }
    }

    @Test
    void readsRacingRewritesOfTheirBlockSeeOneWholeVersion() throws Exception {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("hot", 2 * BLOCK_SIZE);
            store.write(image.id(), 0, block(0), 1, RECORD, false);
            AtomicBoolean done = new AtomicBoolean();
            CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
                int reads = 0;
                while (!done.get()) {
                    ByteBuffer data = read(store, image.id(), 0, 2);
                    byte value = data.get(0);
                    for (int i = 0; i < BLOCK_SIZE; i++) {
                        assertThat(data.get(i)).isEqualTo(value);
                    }
                    reads++;
                }
                return reads;
            });
            // Every write reuses a slot, so each one lands on data a read may be in the middle of.
            for (int round = 1; round <= 5_000 && !reader.isDone(); round++) {
                store.write(image.id(), 0, block(round), round + 1, RECORD, false);
            }
            done.set(true);
            assertThat(reader.get(30, TimeUnit.SECONDS)).isPositive();
        }
    }

    @Test
    void writersOnSeveralThreadsEachSeeTheirBlocksWhole() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("shared", 4 * 256 * BLOCK_SIZE);
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int thread = 0; thread < 4; thread++) {
                int first = thread * 256;
                writers.add(CompletableFuture.runAsync(() -> {
                    for (int round = 1; round <= 20; round++) {
                        for (int block = first; block < first + 256; block++) {
                            store.write(image.id(), block, block(block + round), round, RECORD, false);
                        }
                    }
                }, threads));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            ByteBuffer all = read(store, image.id(), 0, 4 * 256);
            for (int block = 0; block < 4 * 256; block++) {
                for (int at : new int[] {0, BLOCK_SIZE - 1}) {
                    assertThat(all.get(block * BLOCK_SIZE + at)).as("block %s", block).isEqualTo((byte) (block + 20));
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void deletingAnImageRemovesItsFileAndResizingFitsIt() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = store.createImage("disk", 1024 * BLOCK_SIZE);
            store.write(image.id(), 1000, block(1), 1, RECORD, false);
            store.resizeImage("disk", 300 * BLOCK_SIZE);
            assertThat(Files.size(blockFile(image.id()))).isEqualTo(BlockFiles.offset(512, 0));
            store.resizeImage("disk", 3000 * BLOCK_SIZE);
            store.write(image.id(), 2999, block(2), 2, RECORD, false);
            assertThat(read(store, image.id(), 2999, 1).get(0)).isEqualTo((byte) 2);
            assertThat(Files.size(blockFile(image.id()))).isEqualTo(BlockFiles.length(3000));
            store.deleteImage("disk");
            assertThat(blockFile(image.id())).doesNotExist();
        }
    }

    @Test
    void shrinkingAnImageNotUsedSinceTheStoreOpenedTruncatesItsFile() throws IOException {
        long imageId;
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            imageId = store.createImage("disk", 1024 * BLOCK_SIZE).id();
            store.write(imageId, 1000, block(1), 1, RECORD, false);
        }
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            store.resizeImage("disk", 300 * BLOCK_SIZE);
            assertThat(Files.size(blockFile(imageId))).isEqualTo(BlockFiles.length(300));
        }
    }

    @Test
    void refusesADataDirectoryInTheEarlierSegmentFormat() throws IOException {
        Files.createDirectories(directory.resolve("segments"));
        assertThatThrownBy(() -> new RocksBlockStore(directory, 8 << 20))
                .hasMessageContaining("holds block data in segment files, written by an earlier Heliotrope build");
    }
}
