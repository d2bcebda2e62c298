package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.AbstractTestBlockStore;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockRun;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.BlockState.DATA;
import static io.heliotrope.storage.BlockStore.BlockState.UNWRITTEN;
import static io.heliotrope.storage.BlockStore.BlockState.ZERO;
import static io.heliotrope.storage.BlockStore.CopyRule.NEWER;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestRocksBlockStore extends AbstractTestBlockStore {
    @TempDir
    Path directory;

    @Override
    protected BlockStore createStore() {
        return new RocksBlockStore(directory, 8 << 20);
    }

    @Override
    protected void reopen() {
        store.close();
        store = createStore();
    }

    @Test
    void keepsImagesBlocksAndEpochsAcrossReopen() {
        ImageInfo image = store.createImage("durable", 4 * BLOCK_SIZE);
        long epoch = store.beginSession(image.id());
        store.write(image.id(), 1, blocks(2, 3, true), Version.compose(epoch, 1), RECORD, false);
        store.zero(image.id(), 2, 1, Version.compose(epoch, 2), RECORD, false);
        store.close();

        store = createStore();
        assertThat(store.image("durable")).isEqualTo(image);
        assertThat(read(image.id(), 1, 1, false)).containsOnly(3);
        assertThat(read(image.id(), 2, 1, false)).containsOnly(0);
        assertThat(store.usage(image.id())).isEqualTo(new BlockStore.ImageUsage(1, 1));
        assertThat(store.beginSession(image.id())).isGreaterThan(epoch);
        assertThat(store.createImage("next", BLOCK_SIZE).id()).isGreaterThan(image.id());
        assertThat(store.dirtyBlocks(image.id())).hasSize(2);
    }

    @Test
    void statsGiveTheSizesOfTheBlockFilesAndTheIndex() {
        ImageInfo image = store.createImage("sized", 512 * BLOCK_SIZE);
        store.write(image.id(), 0, blocks(1, 1, false), 1, RECORD, false);
        BlockStore.StoreStats stats = store.stats();
        assertThat(stats.blockFileBytes()).isEqualTo(BlockFiles.length(512));
        assertThat(stats.indexMemtableBytes()).isPositive();
        assertThat(stats.indexKeys()).isPositive();
    }

    /** A whole-group write leaves one entry for the group: copies read through it, and replace single blocks of it. */
    @Test
    void copiesReadAndReplaceBlocksOfAGroupWrittenWhole() {
        long id = store.createImage("group", 256 * BLOCK_SIZE).id();
        store.write(id, 0, blocks(256, 0, false), 5, RECORD, false);
        ByteBuffer before = ByteBuffer.allocate(3 * BLOCK_SIZE);
        assertThat(store.readCopies(id, new long[] {0, 100, 255}, before)).containsExactly(
                new BlockVersion(0, 5, DATA), new BlockVersion(100, 5, DATA), new BlockVersion(255, 5, DATA));
        assertThat(before.array()).isEqualTo(filled(0, 100, 255));

        boolean[] stored = store.storeCopies(id, List.of(
                new Copy(100, 6, blocks(1, 200, false)),
                new Copy(101, 7, null),
                new Copy(102, 5, blocks(1, 201, false))), NEWER, false);

        assertThat(stored).containsExactly(true, true, false);
        reopen();
        ByteBuffer after = ByteBuffer.allocate(4 * BLOCK_SIZE);
        assertThat(store.readCopies(id, new long[] {99, 100, 101, 102}, after)).containsExactly(
                new BlockVersion(99, 5, DATA), new BlockVersion(100, 6, DATA), new BlockVersion(101, 7, ZERO), new BlockVersion(102, 5, DATA));
        assertThat(after.array()).isEqualTo(filled(99, 200, 0, 102));
        assertThat(store.dirtyBlocks(id)).hasSize(256).allSatisfy(dirty -> assertThat(dirty.version()).isEqualTo(5));
    }

    /**
     * A block written twice since the last sync has its copy inline, in the index: a copy is
     * checked against that copy's version, goes inline too, as a write would, without a
     * sync, and a zero copy drops it.
     */
    @Test
    void copiesOverABlockRewrittenSinceTheLastSyncCheckItsInlineVersionAndNeedNoSync() {
        RocksBlockStore rocks = (RocksBlockStore) store;
        long id = store.createImage("inline", 16 * BLOCK_SIZE).id();
        store.write(id, 7, blocks(1, 1, false), 1, RECORD, true);
        store.write(id, 7, blocks(1, 2, false), 2, RECORD, false);
        store.write(id, 7, blocks(1, 3, false), 3, RECORD, false);
        long syncs = rocks.syncs();

        assertThat(store.storeCopies(id, List.of(new Copy(7, 3, blocks(1, 9, false))), NEWER, false)).containsExactly(false);
        assertThat(store.storeCopies(id, List.of(new Copy(7, 4, blocks(1, 4, true))), NEWER, false)).containsExactly(true);
        assertThat(rocks.syncs()).isEqualTo(syncs);
        ByteBuffer inline = ByteBuffer.allocate(BLOCK_SIZE);
        assertThat(store.readCopies(id, new long[] {7}, inline)).containsExactly(new BlockVersion(7, 4, DATA));
        assertThat(inline.array()).isEqualTo(filled(4));

        assertThat(store.storeCopies(id, List.of(new Copy(7, 5, null)), NEWER, false)).containsExactly(true);
        reopen();
        ByteBuffer zero = ByteBuffer.allocate(BLOCK_SIZE);
        assertThat(store.readCopies(id, new long[] {7}, zero)).containsExactly(new BlockVersion(7, 5, ZERO));
        assertThat(zero.array()).isEqualTo(filled(0));
        store.write(id, 7, blocks(1, 6, false), 6, RECORD, false);
        assertThat(read(id, 7, 1, false)).isEqualTo(filled(6));
    }

    @Test
    void copiesStoredWithSyncAreDurableOnReturnEvenWhenAllAreZero() {
        RocksBlockStore rocks = (RocksBlockStore) store;
        long id = store.createImage("synced", 16 * BLOCK_SIZE).id();
        store.storeCopies(id, List.of(new Copy(1, 1, blocks(1, 1, false))), NEWER, false);
        assertThat(rocks.blockDataUnsynced()).isTrue();
        long syncs = rocks.syncs();

        store.storeCopies(id, List.of(new Copy(2, 1, blocks(1, 2, false)), new Copy(3, 1, null)), NEWER, true);
        assertThat(rocks.syncs()).isEqualTo(syncs + 1);
        assertThat(rocks.blockDataUnsynced()).isFalse();
        store.storeCopies(id, List.of(new Copy(4, 1, null)), NEWER, true);
        assertThat(rocks.syncs()).isEqualTo(syncs + 2);
        assertThat(store.allocation(id, 0, 5)).containsExactly(
                new BlockRun(0, 1, UNWRITTEN), new BlockRun(1, 2, DATA), new BlockRun(3, 2, ZERO));
    }

    /** A copy of a block the image does not have would leave an index entry that no resize or delete removes. */
    @Test
    void refusesCopiesOfBlocksBeyondTheImagesEndWhole() {
        long id = store.createImage("small", 8 * BLOCK_SIZE).id();
        List<Copy> copies = List.of(new Copy(0, 1, blocks(1, 1, false)), new Copy(8, 1, null));

        assertThatThrownBy(() -> store.storeCopies(id, copies, NEWER, false))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OUT_OF_RANGE))
                .hasMessage("image %d has no block 8: it has 8 blocks", id);
        assertThatThrownBy(() -> store.readCopies(id, new long[] {0, -1}, ByteBuffer.allocate(2 * BLOCK_SIZE)))
                .hasMessage("image %d has no block -1: it has 8 blocks", id);
        assertThat(store.allocation(id, 0, 8)).containsExactly(new BlockRun(0, 8, UNWRITTEN));
    }

    /**
     * Every write of the block moves it while readCopies may be in the middle of it: a write
     * after a sync reuses the slot of the copy before the last, any other goes inline over
     * the inline copy before it. Each copy read must come with the version it was written with.
     */
    @Test
    void readsCopiesRacingRewritesOfTheirBlockWithTheVersionOfTheirData() throws Exception {
        long id = store.createImage("hot", BLOCK_SIZE).id();
        store.write(id, 0, blocks(1, 1, false), 1, RECORD, true);
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
            int reads = 0;
            ByteBuffer data = ByteBuffer.allocate(BLOCK_SIZE);
            while (!done.get()) {
                BlockVersion copy = store.readCopies(id, new long[] {0}, data.clear()).get(0);
                assertThat(data.array()).as("version %s", copy.version()).containsOnly((byte) copy.version());
                reads++;
            }
            return reads;
        });
        try {
            for (int version = 2; version <= 3_000 && !reader.isDone(); version++) {
                store.write(id, 0, blocks(1, version, false), version, RECORD, version % 16 == 0);
            }
        } finally {
            done.set(true);
        }
        assertThat(reader.get(30, TimeUnit.SECONDS)).isPositive();
    }

    /** Blocks each filled with one of {@code fills}, as {@link #blocks} makes them. */
    private static byte[] filled(int... fills) {
        ByteBuffer all = ByteBuffer.allocate(fills.length * BLOCK_SIZE);
        for (int fill : fills) {
            all.put(blocks(1, fill, false));
        }
        return all.array();
    }
}
