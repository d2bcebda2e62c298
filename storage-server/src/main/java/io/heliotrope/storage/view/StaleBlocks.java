package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.Consumer;

/**
 * Which local copies of an image are current: a copy is current iff its version is the
 * committed one in the cached view, or it was written here and not flushed yet.
 */
public final class StaleBlocks {
    private StaleBlocks() {}

    /**
     * A copy of the entries of {@code stale} for the blocks {@code first .. first + count - 1}:
     * fetches and writes make blocks current while the caller works on the copy. Copied entry
     * by entry: {@code new TreeMap<>(sortedMap)} sizes the copy first and then fails with
     * {@code NoSuchElementException} when a block turns current between the two (a read at
     * a site where the background pull stored blocks meanwhile got EIO that way).
     */
    public static SortedMap<Long, GlobalBlock> copyOf(ConcurrentNavigableMap<Long, GlobalBlock> stale, long first, long count) {
        if (stale.isEmpty()) {
            return Collections.emptySortedMap();
        }
        TreeMap<Long, GlobalBlock> copy = new TreeMap<>();
        for (Map.Entry<Long, GlobalBlock> entry : stale.subMap(first, first + count).entrySet()) {
            copy.put(entry.getKey(), entry.getValue());
        }
        return copy;
    }

    /**
     * Calls {@code stale} with the committed entry of every block whose local copy is not
     * current; a block the view does not know reads as never written (version 0, no holder).
     * Index and view both come in block order, so one pass over each suffices.
     */
    public static void find(BlockStore store, ViewCache view, long imageId, Consumer<GlobalBlock> stale) {
        long[] dirty = store.dirtyBlocks(imageId).stream().mapToLong(BlockVersion::block).toArray();
        LongList blocks = new LongList();
        LongList versions = new LongList();
        store.forEachBlock(imageId, block -> {
            if (Arrays.binarySearch(dirty, block.block()) < 0) {
                blocks.add(block.block());
                versions.add(block.version());
            }
        });
        int[] next = {0};
        view.forEachEntry(imageId, global -> {
            for (; next[0] < blocks.size() && blocks.get(next[0]) < global.block(); next[0]++) {
                stale.accept(new GlobalBlock(blocks.get(next[0]), 0, null));
            }
            boolean local = next[0] < blocks.size() && blocks.get(next[0]) == global.block();
            if (local ? versions.get(next[0]) != global.version() : Arrays.binarySearch(dirty, global.block()) < 0) {
                stale.accept(global);
            }
            if (local) {
                next[0]++;
            }
        });
        for (; next[0] < blocks.size(); next[0]++) {
            stale.accept(new GlobalBlock(blocks.get(next[0]), 0, null));
        }
    }

    /**
     * Records a successful flush: the blocks leave the dirty set and, when the flush
     * directly follows the cached view (the lease holder is the only writer), enter the
     * view as held here, so the view stays current without a sync.
     */
    public static void committed(BlockStore store, ViewCache view, long imageId, String site, long metaSeq, List<BlockVersion> flushed) {
        applyCommitted(view, imageId, site, metaSeq, flushed);
        store.markFlushed(imageId, flushed);
    }

    /**
     * Enters a successful flush of blocks held by {@code holder} into the view when it
     * directly follows the cached view; returns whether it did.
     */
    static boolean applyCommitted(ViewCache view, long imageId, String holder, long metaSeq, List<BlockVersion> flushed) {
        // An empty flush takes no metaSeq: the seq it returns may be a commit this site never saw.
        if (flushed.isEmpty() || metaSeq != view.metaSeq(imageId) + 1) {
            return false;
        }
        view.apply(imageId, metaSeq, false, flushed.stream()
                .map(block -> new GlobalBlock(block.block(), block.version(), block.state() == BlockState.ZERO ? null : holder))
                .toList());
        return true;
    }

    /** A growable array of longs, to hold a whole image's index without boxing. */
    private static final class LongList {
        private long[] values = new long[1024];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        long get(int index) {
            return values[index];
        }

        int size() {
            return size;
        }
    }
}
