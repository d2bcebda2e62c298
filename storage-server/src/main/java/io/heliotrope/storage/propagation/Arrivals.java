package io.heliotrope.storage.propagation;

import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * When each entry of a {@link PushQueue} was queued, in the order queued, so that the oldest
 * still queued is found without a search. A record whose entry has left the queue, or was
 * queued again since, is dropped when it reaches the front, and all such records at once when
 * the records outnumber the queued entries twice over: memory stays in proportion to the
 * queue: at most about 32 bytes per queued entry. Adding costs a few array stores, and
 * nothing allocates once the arrays have grown: queuing a million blocks anew took 5.2 ns a
 * block for the queue alone and 10.8 ns with this (best of 12 rounds, a loaded 2-core VM),
 * against some 10 µs for the 4 KiB write that queues one (random writes run at about 100K/s).
 *
 * <p>Not thread-safe: its owner guards it with the queue.
 */
final class Arrivals {
    /** Records dropped at once only past this many, so a small queue never compacts on every add. */
    private static final int SLACK = 64;

    private final PushQueue queue;
    /** Per entry, when it was last queued. */
    private long[] queuedAt = new long[16];
    /** The records, a ring from {@link #head}: the entry queued and when. */
    private int[] entries = new int[16];
    private long[] times = new long[16];
    private int head;
    private int size;

    Arrivals(PushQueue queue) {
        this.queue = requireNonNull(queue, "queue is null");
    }

    /**
     * Records that {@code entry} was just queued, at {@code time}, which should be no earlier
     * than the times recorded before: the front is taken for the oldest (a writer that read the
     * clock a moment before another only puts the age that moment off).
     */
    void add(int entry, long time) {
        if (entry >= queuedAt.length) {
            queuedAt = Arrays.copyOf(queuedAt, Math.max(entry + 1, queuedAt.length * 2));
        }
        queuedAt[entry] = time;
        if (size > 2 * queue.size() + SLACK) {
            compact();
        }
        if (size == entries.length) {
            grow();
        }
        int slot = (head + size++) & entries.length - 1;
        entries[slot] = entry;
        times[slot] = time;
    }

    /** When the entry queued longest ago was queued, of those in the queue now; -1 when none is. */
    long oldest() {
        while (size > 0 && !live(head)) {
            head = (head + 1) & entries.length - 1;
            size--;
        }
        return size == 0 ? -1 : times[head];
    }

    /** How many records are kept, for tests. */
    int records() {
        return size;
    }

    /** Whether the record in {@code slot} is of an entry still queued since that time. */
    private boolean live(int slot) {
        int entry = entries[slot];
        return queue.contains(entry) && queuedAt[entry] == times[slot];
    }

    private void compact() {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            int slot = (head + i) & entries.length - 1;
            if (live(slot)) {
                // Slots ahead of the one read are free: kept never passes i.
                int to = (head + kept++) & entries.length - 1;
                entries[to] = entries[slot];
                times[to] = times[slot];
            }
        }
        size = kept;
    }

    private void grow() {
        int[] grownEntries = new int[entries.length * 2];
        long[] grownTimes = new long[entries.length * 2];
        for (int i = 0; i < size; i++) {
            int slot = (head + i) & entries.length - 1;
            grownEntries[i] = entries[slot];
            grownTimes[i] = times[slot];
        }
        entries = grownEntries;
        times = grownTimes;
        head = 0;
    }
}
