package io.heliotrope.storage.heat;

import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * How hot each block of an open image is here: per block a count of reads and writes (each
 * weighs 1) that halves every generation (the half-life) it is not touched. A touch makes
 * it {@code (count >>> generations since the last touch) + 1}, saturating at {@value #MAX_COUNT}.
 *
 * <p>Blocks are found through an open-addressing table of primitives (as {@code AccessStats}):
 * 12 bytes a slot, at most two slots a block, so 2^20 tracked blocks take at most 24 MiB. Once
 * {@code trackedBlocks} are counted, blocks touched for the first time are not. A generation is
 * kept in 16 bits: a block untouched for 2^15 generations (114 days at 5 minutes) may look newer.
 *
 * <p>The first {@code startBlocks} blocks touched lead the order, as they were touched: what the
 * session's open needed first, which the next holder's open needs first too.
 *
 * <p>Thread-safe, for the I/O path: {@link #record} probes the table once per block, holding
 * the image's lock for at most {@value #CHUNK} blocks at a time, and allocates nothing once the
 * table has grown. {@link #hottest} copies the table under the lock and sorts outside it.
 */
public final class BlockHeat {
    static final int MAX_COUNT = 0xFFFF;
    private static final int CHUNK = 256;
    private static final long FREE = -1;

    private final LongSupplier millis;
    private final long origin;
    private final long halfLifeMillis;
    private final int trackedBlocks;
    /** The block of each slot, or {@link #FREE}. */
    private long[] slots = filledSlots(64);
    /** Per slot, the generation of the last touch (high 16 bits) and the count then (low 16 bits). */
    private int[] values = new int[64];
    private int size;
    /** The blocks touched first, in the order they were. */
    private final long[] start;
    private int started;

    /** @param millis the time now, in milliseconds */
    BlockHeat(LongSupplier millis, HeatConfig config) {
        this.millis = millis;
        this.origin = millis.getAsLong();
        this.halfLifeMillis = config.halfLife().toMillis();
        this.trackedBlocks = config.trackedBlocks();
        this.start = new long[Math.min(config.startBlocks(), config.trackedBlocks())];
    }

    /** Counts a read or a write of {@code count} blocks from {@code first}. */
    public void record(long first, long count) {
        int generation = generation();
        for (long block = first, end = first + count; block < end; ) {
            synchronized (this) {
                for (long chunkEnd = Math.min(end, block + CHUNK); block < chunkEnd; block++) {
                    touch(block, generation);
                }
            }
        }
    }

    /**
     * At most {@code max} of the blocks counted: those touched first, in that order, then the others hottest first (by
     * count now), blocks of equal counts in block order.
     */
    public long[] hottest(int max) {
        int generation = generation();
        long[] blocks;
        int[] counts;
        long[] first;
        synchronized (this) {
            first = Arrays.copyOf(start, started);
            blocks = new long[size];
            counts = new int[size];
            for (int slot = 0, found = 0; found < size; slot++) {
                if (slots[slot] != FREE) {
                    blocks[found] = slots[slot];
                    counts[found++] = decayed(values[slot], generation);
                }
            }
        }
        return startFirst(first, byCount(blocks, counts, blocks.length), Math.max(0, max));
    }

    /** The blocks touched first, then the others of {@code byHeat}, at most {@code max}. */
    private static long[] startFirst(long[] first, long[] byHeat, int max) {
        if (first.length == 0) {
            return byHeat.length <= max ? byHeat : Arrays.copyOf(byHeat, max);
        }
        long[] ordered = new long[Math.min(max, byHeat.length)];
        int kept = Math.min(first.length, ordered.length);
        System.arraycopy(first, 0, ordered, 0, kept);
        long[] early = first.clone();
        Arrays.sort(early);
        for (int i = 0; i < byHeat.length && kept < ordered.length; i++) {
            if (Arrays.binarySearch(early, byHeat[i]) < 0) {
                ordered[kept++] = byHeat[i];
            }
        }
        return ordered;
    }

    /** How many blocks are counted. */
    public synchronized int size() {
        return size;
    }

    private int generation() {
        return (int) ((millis.getAsLong() - origin) / halfLifeMillis);
    }

    private void touch(long block, int generation) {
        int slot = slotOf(slots, block);
        if (slots[slot] != FREE) {
            values[slot] = pack(Math.min(MAX_COUNT, decayed(values[slot], generation) + 1), generation);
            return;
        }
        if (size == trackedBlocks) {
            return;
        }
        slots[slot] = block;
        values[slot] = pack(1, generation);
        if (started < start.length) {
            start[started++] = block;
        }
        if (++size * 2 > slots.length) {
            rehash(slots.length * 2);
        }
    }

    /** The count of a slot's value, halved once for each generation since its last touch. */
    static int decayed(int value, int generation) {
        int age = (short) (generation - (value >>> 16));
        return age <= 0 ? value & MAX_COUNT : age >= 16 ? 0 : (value & MAX_COUNT) >>> age;
    }

    private static int pack(int count, int generation) {
        return generation << 16 | count;
    }

    /** The blocks sorted by count, highest first, then by block: a counting sort on the 16-bit counts. */
    private static long[] byCount(long[] blocks, int[] counts, int max) {
        int[] starts = new int[MAX_COUNT + 2];
        for (int count : counts) {
            starts[MAX_COUNT - count + 1]++;
        }
        for (int rank = 1; rank < starts.length; rank++) {
            starts[rank] += starts[rank - 1];
        }
        long[] sorted = new long[blocks.length];
        int[] next = Arrays.copyOf(starts, MAX_COUNT + 1);
        for (int i = 0; i < blocks.length; i++) {
            sorted[next[MAX_COUNT - counts[i]]++] = blocks[i];
        }
        int kept = Math.min(max, sorted.length);
        for (int rank = 0; rank <= MAX_COUNT && starts[rank] < kept; rank++) {
            Arrays.sort(sorted, starts[rank], starts[rank + 1]);
        }
        return kept == sorted.length ? sorted : Arrays.copyOf(sorted, kept);
    }

    /** The slot of {@code table} that holds {@code block}, or the free slot where it would go: linear probing from its hash. */
    private static int slotOf(long[] table, long block) {
        // The finalizer of MurmurHash3: consecutive blocks land far apart.
        long mixed = (block ^ (block >>> 33)) * 0xFF51AFD7ED558CCDL;
        mixed = (mixed ^ (mixed >>> 33)) * 0xC4CEB9FE1A85EC53L;
        int mask = table.length - 1;
        int slot = (int) (mixed ^ (mixed >>> 33)) & mask;
        while (table[slot] != FREE && table[slot] != block) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private void rehash(int capacity) {
        long[] oldSlots = slots;
        int[] oldValues = values;
        slots = filledSlots(capacity);
        values = new int[capacity];
        for (int old = 0; old < oldSlots.length; old++) {
            if (oldSlots[old] != FREE) {
                int slot = slotOf(slots, oldSlots[old]);
                slots[slot] = oldSlots[old];
                values[slot] = oldValues[old];
            }
        }
    }

    private static long[] filledSlots(int capacity) {
        long[] slots = new long[capacity];
        Arrays.fill(slots, FREE);
        return slots;
    }
}
