package io.heliotrope.storage.rocksdb;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The slot each block's next copy goes to, one bit per block, so a write need not read
 * the block's index entry. Loaded from the index {@value #CHUNK_BLOCKS} blocks (256 MiB)
 * at a time, when a write first touches them: 8 KiB of memory per chunk written.
 * Not thread-safe; the store's write lock guards it.
 */
final class FreeSlots {
    static final int CHUNK_BLOCKS = 1 << 16;

    /** Reads the index: calls {@code found} with each block of the range that has an entry, and the slot of its copy. */
    interface Loader {
        void load(long imageId, long firstBlock, long count, SlotVisitor found);
    }

    interface SlotVisitor {
        void visit(long block, int slot);
    }

    private final Loader loader;
    private final Map<Long, Map<Long, BitSet>> images = new HashMap<>();

    FreeSlots(Loader loader) {
        this.loader = requireNonNull(loader, "loader is null");
    }

    /** The slot the block's next copy goes to: the one its current copy is not in. */
    int next(long imageId, long block) {
        return chunk(imageId, block).get(bit(block)) ? 1 : 0;
    }

    /** Records that the block's current copy is now in {@code slot}. */
    void wrote(long imageId, long block, int slot) {
        chunk(imageId, block).set(bit(block), slot == 0);
    }

    /** Drops what is known of an image, after it was deleted or shrunk. */
    void forget(long imageId) {
        images.remove(imageId);
    }

    private BitSet chunk(long imageId, long block) {
        return images.computeIfAbsent(imageId, id -> new HashMap<>()).computeIfAbsent(block / CHUNK_BLOCKS, chunk -> {
            BitSet next = new BitSet(CHUNK_BLOCKS);
            loader.load(imageId, chunk * CHUNK_BLOCKS, CHUNK_BLOCKS, (found, slot) -> next.set(bit(found), slot == 0));
            return next;
        });
    }

    private static int bit(long block) {
        return (int) (block % CHUNK_BLOCKS);
    }
}
