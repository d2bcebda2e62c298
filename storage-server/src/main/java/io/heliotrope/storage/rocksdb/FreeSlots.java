package io.heliotrope.storage.rocksdb;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Per block, the slot its next copy goes to, whether it was written since the last sync,
 * whether each of its slots has held data (so the file has pages there, and a write
 * may copy into the mapping instead of allocating through a system call), and whether its
 * current copy is inline, in the index: five bits per block, so a write need not read the
 * block's index entry. Loaded from the index
 * {@value #CHUNK_BLOCKS} blocks (256 MiB) at a time, when a write first touches them:
 * 40 KiB of memory per chunk written. A slot not known to have held data since the load
 * counts as empty. Not thread-safe; the store's write lock guards it.
 */
final class FreeSlots {
    static final int CHUNK_BLOCKS = 1 << 16;

    /** Reads the index: calls {@code found} with each block of the range that has an entry, the slot of its copy and whether it is data. */
    interface Loader {
        void load(long imageId, long firstBlock, long count, SlotVisitor found);
    }

    interface SlotVisitor {
        void visit(long block, int slot, boolean data);
    }

    private static final class Chunk {
        final BitSet nextIsOne = new BitSet(CHUNK_BLOCKS);
        final BitSet unsynced = new BitSet(CHUNK_BLOCKS);
        final BitSet currentHeldData = new BitSet(CHUNK_BLOCKS);
        final BitSet nextHeldData = new BitSet(CHUNK_BLOCKS);
        final BitSet inline = new BitSet(CHUNK_BLOCKS);
    }

    private final Loader loader;
    private final Map<Long, Map<Long, Chunk>> images = new HashMap<>();
    private final List<Chunk> withUnsynced = new ArrayList<>();
    private int unsyncedBlocks;
    /** The chunk used last, found without two map lookups: a write asks about each of its blocks in turn. */
    private Chunk last;
    private long lastImageId;
    private long lastIndex;

    FreeSlots(Loader loader) {
        this.loader = requireNonNull(loader, "loader is null");
    }

    /** The slot the block's next copy goes to: the one its current copy is not in. */
    int next(long imageId, long block) {
        return chunk(imageId, block).nextIsOne.get(bit(block)) ? 1 : 0;
    }

    /** Whether the slot the block's next copy goes to has held data before. */
    boolean nextHeldData(long imageId, long block) {
        return chunk(imageId, block).nextHeldData.get(bit(block));
    }

    /** Whether the block was written since the last {@link #synced()}. */
    boolean unsynced(long imageId, long block) {
        return chunk(imageId, block).unsynced.get(bit(block));
    }

    /** Whether a block of the range was written since the last {@link #synced()}. */
    boolean unsynced(long imageId, long firstBlock, int count) {
        for (long block = firstBlock; block < firstBlock + count; block++) {
            if (unsynced(imageId, block)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the block's current copy is inline, in the index. */
    boolean inline(long imageId, long block) {
        return chunk(imageId, block).inline.get(bit(block));
    }

    /**
     * Records that the block's current copy is now inline; it was written since the last
     * sync already, and its slots stay as they were.
     */
    void wroteInline(long imageId, long block) {
        chunk(imageId, block).inline.set(bit(block));
    }

    /** Records that the block's current copy is now in {@code slot}, not yet synced. */
    void wrote(long imageId, long block, int slot) {
        Chunk chunk = chunk(imageId, block);
        chunk.inline.clear(bit(block));
        chunk.nextIsOne.set(bit(block), slot == 0);
        chunk.nextHeldData.set(bit(block), chunk.currentHeldData.get(bit(block)));
        chunk.currentHeldData.set(bit(block));
        if (chunk.unsynced.isEmpty()) {
            withUnsynced.add(chunk);
        }
        if (!chunk.unsynced.get(bit(block))) {
            chunk.unsynced.set(bit(block));
            unsyncedBlocks++;
        }
    }

    /** Blocks written since the last sync. */
    int unsyncedBlocks() {
        return unsyncedBlocks;
    }

    /** Everything written so far is durable. */
    void synced() {
        withUnsynced.forEach(chunk -> chunk.unsynced.clear());
        withUnsynced.clear();
        unsyncedBlocks = 0;
    }

    /** Drops what is known of an image, after it was deleted or shrunk. */
    void forget(long imageId) {
        Map<Long, Chunk> chunks = images.remove(imageId);
        last = null;
        if (chunks != null) {
            for (Chunk chunk : chunks.values()) {
                unsyncedBlocks -= chunk.unsynced.cardinality();
                chunk.unsynced.clear();
            }
            withUnsynced.removeIf(chunk -> chunk.unsynced.isEmpty());
        }
    }

    private Chunk chunk(long imageId, long block) {
        long index = block / CHUNK_BLOCKS;
        if (last == null || lastImageId != imageId || lastIndex != index) {
            last = lookUp(imageId, index);
            lastImageId = imageId;
            lastIndex = index;
        }
        return last;
    }

    private Chunk lookUp(long imageId, long chunkIndex) {
        return images.computeIfAbsent(imageId, id -> new HashMap<>()).computeIfAbsent(chunkIndex, index -> {
            Chunk chunk = new Chunk();
            loader.load(imageId, index * CHUNK_BLOCKS, CHUNK_BLOCKS, (found, slot, data) -> {
                if (data && slot == IndexEntries.INLINE) {
                    chunk.inline.set(bit(found));
                } else {
                    chunk.nextIsOne.set(bit(found), slot == 0);
                    chunk.currentHeldData.set(bit(found), data);
                }
            });
            return chunk;
        });
    }

    private static int bit(long block) {
        return (int) (block % CHUNK_BLOCKS);
    }
}
