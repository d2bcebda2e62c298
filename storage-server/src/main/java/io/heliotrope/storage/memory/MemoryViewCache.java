package io.heliotrope.storage.memory;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.view.ViewCache;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/** The view cache of a {@link MemoryBlockStore}, in the heap. */
final class MemoryViewCache implements ViewCache {
    private final Map<Long, CachedView> images = new HashMap<>();

    private static final class CachedView {
        final TreeMap<Long, GlobalBlock> entries = new TreeMap<>();
        long metaSeq;
        long fence;
    }

    @Override
    public synchronized long metaSeq(long imageId) {
        CachedView view = images.get(imageId);
        return view == null ? 0 : view.metaSeq;
    }

    @Override
    public synchronized GlobalBlock entry(long imageId, long block) {
        CachedView view = images.get(imageId);
        return view == null ? null : view.entries.get(block);
    }

    @Override
    public synchronized void forEachEntry(long imageId, Consumer<GlobalBlock> visitor) {
        CachedView view = images.get(imageId);
        if (view != null) {
            view.entries.values().forEach(visitor);
        }
    }

    @Override
    public synchronized void apply(long imageId, long metaSeq, boolean replace, List<GlobalBlock> entries) {
        CachedView view = images.computeIfAbsent(imageId, id -> new CachedView());
        if (replace) {
            view.entries.clear();
        }
        for (GlobalBlock entry : entries) {
            view.entries.put(entry.block(), entry);
        }
        view.metaSeq = metaSeq;
    }

    @Override
    public synchronized long fence(long imageId) {
        CachedView view = images.get(imageId);
        return view == null ? 0 : view.fence;
    }

    @Override
    public synchronized long raiseFence(long imageId, long belowEpoch) {
        CachedView view = images.computeIfAbsent(imageId, id -> new CachedView());
        view.fence = Math.max(view.fence, belowEpoch);
        return view.fence;
    }

    /** Drops the entries of blocks from {@code blockCount} on, after the image shrank. */
    synchronized void truncate(long imageId, long blockCount) {
        CachedView view = images.get(imageId);
        if (view != null) {
            view.entries.tailMap(blockCount).clear();
        }
    }

    /** Drops the image's view, after it was deleted. */
    synchronized void forget(long imageId) {
        images.remove(imageId);
    }
}
