package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.AbstractTestBlockStore;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static org.assertj.core.api.Assertions.assertThat;

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
}
