package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.ImageInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static io.heliotrope.storage.rocksdb.TestBlockSlots.filled;
import static io.heliotrope.storage.rocksdb.TestBlockSlots.read;
import static org.assertj.core.api.Assertions.assertThat;

class TestIndexCache {
    private static final int GROUP_BYTES = 256 * BLOCK_SIZE;

    @TempDir
    Path directory;

    private final IndexCache cache = new IndexCache();

    private IndexCache.Group loaded(long imageId, long group) {
        return new IndexCache.Group(imageId, group, cache.stamp(imageId, group), new byte[256], new int[256]);
    }

    @Test
    void aGroupIsServedUntilABlockOfItChanges() {
        IndexCache.Group group = loaded(1, 3);
        cache.put(group);
        cache.changed(1, 4 * 256, 10);
        cache.changed(2, 3 * 256, 1);
        assertThat(cache.get(1, 3)).as("changes to other groups and images").isSameAs(group);
        cache.changed(1, 3 * 256 + 255, 2);
        assertThat(cache.get(1, 3)).isNull();
    }

    @Test
    void aGroupLoadedWhileAWriteChangedItIsNeverServed() {
        long stamp = cache.stamp(1, 0);
        // The write commits and returns between the loader's stamp and its put.
        cache.changed(1, 0, 1);
        cache.put(new IndexCache.Group(1, 0, stamp, new byte[256], new int[256]));
        assertThat(cache.get(1, 0)).isNull();
        IndexCache.Group reloaded = loaded(1, 0);
        cache.put(reloaded);
        assertThat(cache.get(1, 0)).isSameAs(reloaded);
    }

    @Test
    void aChangeToEveryGroupDropsThemAll() {
        cache.put(loaded(1, 0));
        cache.put(loaded(7, 100));
        cache.changedAll();
        assertThat(cache.get(1, 0)).isNull();
        assertThat(cache.get(7, 100)).isNull();
    }

    @Test
    void aGroupOfTheSamePlaceReplacesTheOneBefore() {
        cache.put(loaded(1, 0));
        cache.put(loaded(1, 1 << 13));
        assertThat(cache.get(1, 0)).isNull();
        assertThat(cache.get(1, 1 << 13)).isNotNull();
    }

    /** An image of two groups of ones, read whole, so the cache has both. */
    private static ImageInfo cachedTwoGroups(RocksBlockStore store) {
        ImageInfo image = store.createImage("disk", 2L * GROUP_BYTES);
        store.write(image.id(), 0, filled(2 * GROUP_BYTES, 1), 1, RECORD, false);
        assertThat(read(store, image.id(), 0, 512)).isEqualTo(filled(2 * GROUP_BYTES, 1));
        return image;
    }

    @Test
    void readsOfACachedGroupSeeEveryWriteAndZeroThatFollows() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = cachedTwoGroups(store);
            store.write(image.id(), 10, filled(BLOCK_SIZE, 2), 2, RECORD, false);
            store.zero(image.id(), 20, 1, 3, RECORD, false);
            store.zeroBlocks(image.id(), new long[] {300}, 4, RECORD, false);
            ByteBuffer all = read(store, image.id(), 0, 512);
            assertThat(all.get(10 * BLOCK_SIZE)).isEqualTo((byte) 2);
            assertThat(all.get(20 * BLOCK_SIZE)).isZero();
            assertThat(all.get(300 * BLOCK_SIZE)).isZero();
            assertThat(all.get(301 * BLOCK_SIZE)).isEqualTo((byte) 1);
            assertThat(read(store, image.id(), 10, 1)).as("a single block from a cached group").isEqualTo(filled(BLOCK_SIZE, 2));
        }
    }

    @Test
    void blocksCutOffByAShrinkReadAsZerosOnceTheImageGrowsAgain() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = cachedTwoGroups(store);
            store.resizeImage("disk", GROUP_BYTES + BLOCK_SIZE);
            store.resizeImage("disk", 2L * GROUP_BYTES);
            ByteBuffer all = read(store, image.id(), 0, 512);
            assertThat(all.get(256 * BLOCK_SIZE)).isEqualTo((byte) 1);
            assertThat(all.slice(257 * BLOCK_SIZE, 255 * BLOCK_SIZE)).isEqualTo(ByteBuffer.allocate(255 * BLOCK_SIZE));
        }
    }

    @Test
    void aReadAfterAWriteReturnedSeesItWhileOtherReadsKeepFillingTheCache() throws Exception {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = cachedTwoGroups(store);
            AtomicBoolean done = new AtomicBoolean();
            CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
                int reads = 0;
                for (; !done.get(); reads++) {
                    read(store, image.id(), 0, 512);
                }
                return reads;
            });
            for (int round = 2; round < 2_000 && !reader.isDone(); round++) {
                store.write(image.id(), round % 512, filled(BLOCK_SIZE, round), round, RECORD, false);
                assertThat(read(store, image.id(), 0, 512).get(round % 512 * BLOCK_SIZE)).as("round %s", round).isEqualTo((byte) round);
            }
            done.set(true);
            assertThat(reader.get(30, TimeUnit.SECONDS)).isPositive();
        }
    }
}
