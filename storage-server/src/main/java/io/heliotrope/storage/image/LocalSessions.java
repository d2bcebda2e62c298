package io.heliotrope.storage.image;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;

import static java.util.Objects.requireNonNull;

/** Sessions of a standalone site: every local copy is current and epochs come from the store. */
public final class LocalSessions implements ImageSessions {
    private final BlockStore store;

    public LocalSessions(BlockStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    @Override
    public List<String> imageNames() {
        return store.listImages().stream().map(ImageInfo::name).toList();
    }

    /** No controller to tell. */
    @Override
    public Dirty dirty() {
        return Dirty.SKIP;
    }

    @Override
    public ImageSession open(String name) {
        ImageInfo info = store.image(name);
        return new ImageSession() {
            private volatile long epoch = store.beginSession(info.id());

            @Override
            public ImageInfo info() {
                return info;
            }

            @Override
            public long epoch() {
                return epoch;
            }

            @Override
            public long nextEpoch() {
                epoch = store.beginSession(info.id());
                return epoch;
            }

            @Override
            public void checkCurrent() {}

            @Override
            public SortedMap<Long, GlobalBlock> stale(long first, long count) {
                return Collections.emptySortedMap();
            }

            @Override
            public void wrote(long first, long count) {}

            @Override
            public void fetched(GlobalBlock block) {}

            @Override
            public void close() {
                // No controller to tell: the blocks are as flushed as they will ever be.
                store.markFlushed(info.id(), store.dirtyBlocks(info.id()));
            }
        };
    }
}
