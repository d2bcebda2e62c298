package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract every {@link ViewCache} keeps, with the block store that provides it.
 *
 * @param <S> the store
 */
public abstract class AbstractTestViewCache<S extends BlockStore> {
    protected S store;
    protected ViewCache view;

    protected abstract S createStore();

    protected abstract ViewCache viewOf(S store);

    @BeforeEach
    protected void open() {
        store = createStore();
        view = viewOf(store);
    }

    @AfterEach
    protected void close() {
        store.close();
    }

    protected List<GlobalBlock> entries(long imageId) {
        List<GlobalBlock> entries = new ArrayList<>();
        view.forEachEntry(imageId, entries::add);
        return entries;
    }

    @Test
    void cachesTheGlobalViewUpToItsMetaSeq() {
        ImageInfo image = store.createImage("view", 8 * BLOCK_SIZE);
        assertThat(view.metaSeq(image.id())).isZero();
        view.apply(image.id(), 3, false, List.of(new GlobalBlock(4, 7, "east"), new GlobalBlock(1, 5, null), new GlobalBlock(4, 8, "west")));
        assertThat(entries(image.id())).containsExactly(new GlobalBlock(1, 5, null), new GlobalBlock(4, 8, "west"));
        assertThat(view.metaSeq(image.id())).isEqualTo(3);
        assertThat(view.entry(image.id(), 4)).isEqualTo(new GlobalBlock(4, 8, "west"));
        assertThat(view.entry(image.id(), 1)).isEqualTo(new GlobalBlock(1, 5, null));
        assertThat(view.entry(image.id(), 2)).isNull();

        view.apply(image.id(), 4, false, List.of(new GlobalBlock(2, 9, "east")));
        assertThat(entries(image.id())).containsExactly(new GlobalBlock(1, 5, null), new GlobalBlock(2, 9, "east"), new GlobalBlock(4, 8, "west"));

        view.apply(image.id(), 9, true, List.of(new GlobalBlock(2, 1, "east")));
        assertThat(entries(image.id())).containsExactly(new GlobalBlock(2, 1, "east"));
        assertThat(view.metaSeq(image.id())).isEqualTo(9);
    }

    @Test
    void keepsEachImagesViewApart() {
        ImageInfo first = store.createImage("first", 8 * BLOCK_SIZE);
        ImageInfo second = store.createImage("second", 8 * BLOCK_SIZE);
        view.apply(first.id(), 2, false, List.of(new GlobalBlock(7, 1, "east")));
        view.apply(second.id(), 5, true, List.of(new GlobalBlock(0, 3, null)));
        assertThat(entries(first.id())).containsExactly(new GlobalBlock(7, 1, "east"));
        assertThat(view.metaSeq(first.id())).isEqualTo(2);
        assertThat(entries(second.id())).containsExactly(new GlobalBlock(0, 3, null));
    }

    @Test
    void anImageTakesItsViewAlongWhenRemovedAndItsEntriesBeyondTheEndWhenShrunk() {
        ImageInfo image = store.createImage("shrinking", 8 * BLOCK_SIZE);
        view.apply(image.id(), 6, false, List.of(new GlobalBlock(1, 1, "east"), new GlobalBlock(5, 2, "west")));
        store.resizeImage("shrinking", 4 * BLOCK_SIZE);
        store.resizeImage("shrinking", 8 * BLOCK_SIZE);
        assertThat(entries(image.id())).containsExactly(new GlobalBlock(1, 1, "east"));
        assertThat(view.metaSeq(image.id())).isEqualTo(6);

        store.deleteImage("shrinking");
        assertThat(entries(image.id())).isEmpty();
        assertThat(view.metaSeq(image.id())).isZero();
    }

    @Test
    void aFenceOnlyGoesUpAndGoesWithItsImage() {
        ImageInfo image = store.createImage("fenced", 8 * BLOCK_SIZE);
        assertThat(view.fence(image.id())).isZero();

        assertThat(view.raiseFence(image.id(), 5)).isEqualTo(5);
        assertThat(view.raiseFence(image.id(), 3)).isEqualTo(5);
        assertThat(view.fence(image.id())).isEqualTo(5);

        store.deleteImage("fenced");
        assertThat(view.fence(image.id())).isZero();
    }
}
