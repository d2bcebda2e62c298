package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.view.AbstractTestViewCache;
import io.heliotrope.storage.view.ViewCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

class TestRocksViewCache extends AbstractTestViewCache<RocksBlockStore> {
    @TempDir
    Path directory;

    @Override
    protected RocksBlockStore createStore() {
        return new RocksBlockStore(directory, 8 << 20);
    }

    @Override
    protected ViewCache viewOf(RocksBlockStore store) {
        return store.view();
    }

    @Test
    void keepsTheViewAndTheFenceAcrossReopen() {
        ImageInfo image = store.createImage("durable", 8 * BLOCK_SIZE);
        view.apply(image.id(), 4, false, List.of(new GlobalBlock(3, 1, "east"), new GlobalBlock(6, 2, null)));
        view.raiseFence(image.id(), 9);
        close();
        open();
        assertThat(entries(image.id())).containsExactly(new GlobalBlock(3, 1, "east"), new GlobalBlock(6, 2, null));
        assertThat(view.metaSeq(image.id())).isEqualTo(4);
        assertThat(view.fence(image.id())).isEqualTo(9);
    }
}
