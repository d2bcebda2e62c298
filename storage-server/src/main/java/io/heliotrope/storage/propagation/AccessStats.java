package io.heliotrope.storage.propagation;

import java.util.Arrays;

/**
 * Read and write counts ({@code fr}, {@code fw}) per block of an image since it opened
 * here, and the paper's propagation priority computed from them (DESIGN.md section 6).
 *
 * <p>Each block counted gets an entry: a dense number, given in the order blocks are first
 * seen and kept while the image stays open, that {@link PushQueue} indexes its arrays by.
 * Blocks are found through an open-addressing table of primitives, so an image of
 * 268 million blocks costs memory only for the blocks touched (about 40 bytes each, with
 * the queue's share), never a dense array of its size. Counts saturate at
 * {@link Integer#MAX_VALUE}.
 *
 * <p>Not thread-safe: its owner guards it.
 */
final class AccessStats {
    private static final long FREE = -1;

    /** Open addressing with linear probing: the block of each slot, or {@link #FREE}. */
    private long[] slots = filledSlots(64);
    /** The entry of each slot. */
    private int[] slotEntries = new int[64];
    private long[] blocks = new long[16];
    private int[] reads = new int[16];
    private int[] writes = new int[16];
    private int size;

    /**
     * The paper's priority: {@code K * fr/fw + fr} if {@code fw > 0} and {@code fr/fw >= S},
     * else -1 (the block is not pushed proactively).
     */
    static double priority(long reads, long writes, double k, double s) {
        if (writes == 0) {
            return -1;
        }
        double ratio = (double) reads / writes;
        return ratio >= s ? k * ratio + reads : -1;
    }

    /** The entry of {@code block}, or -1 when it has none. */
    int find(long block) {
        int slot = probe(block);
        return slots[slot] == FREE ? -1 : slotEntries[slot];
    }

    /** The entry of {@code block}, added with no reads and no writes when it has none. */
    int entry(long block) {
        int slot = probe(block);
        if (slots[slot] != FREE) {
            return slotEntries[slot];
        }
        if (size == blocks.length) {
            int capacity = size * 2;
            blocks = Arrays.copyOf(blocks, capacity);
            reads = Arrays.copyOf(reads, capacity);
            writes = Arrays.copyOf(writes, capacity);
        }
        int entry = size++;
        blocks[entry] = block;
        slots[slot] = block;
        slotEntries[slot] = entry;
        if (size * 2 > slots.length) {
            rehash(slots.length * 2);
        }
        return entry;
    }

    void addRead(int entry) {
        if (reads[entry] != Integer.MAX_VALUE) {
            reads[entry]++;
        }
    }

    void addWrite(int entry) {
        if (writes[entry] != Integer.MAX_VALUE) {
            writes[entry]++;
        }
    }

    long block(int entry) {
        return blocks[entry];
    }

    long reads(int entry) {
        return reads[entry];
    }

    long writes(int entry) {
        return writes[entry];
    }

    double priority(int entry, double k, double s) {
        return priority(reads[entry], writes[entry], k, s);
    }

    /** How many blocks have entries. */
    int size() {
        return size;
    }

    /** The slot that holds {@code block}, or the free slot where it would go. */
    private int probe(long block) {
        int slot = home(block, slots.length);
        while (slots[slot] != FREE && slots[slot] != block) {
            slot = (slot + 1) & (slots.length - 1);
        }
        return slot;
    }

    private static int home(long block, int capacity) {
        long mixed = block * 0x9E3779B97F4A7C15L;
        return (int) (mixed ^ (mixed >>> 32)) & (capacity - 1);
    }

    private void rehash(int capacity) {
        slots = filledSlots(capacity);
        slotEntries = new int[capacity];
        for (int entry = 0; entry < size; entry++) {
            int slot = home(blocks[entry], capacity);
            while (slots[slot] != FREE) {
                slot = (slot + 1) & (capacity - 1);
            }
            slots[slot] = blocks[entry];
            slotEntries[slot] = entry;
        }
    }

    private static long[] filledSlots(int capacity) {
        long[] slots = new long[capacity];
        Arrays.fill(slots, FREE);
        return slots;
    }
}
