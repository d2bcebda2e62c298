package io.heliotrope.storage.propagation;

import java.util.Arrays;

/**
 * The blocks of an image updated since they were last sent, highest priority first: an
 * indexed binary heap of {@link AccessStats} entries, so a block whose counts change moves
 * to its new rank in {@code O(log n)} without allocating. Equal priorities go by more reads,
 * then by lower block number. Blocks whose priority is -1 stay queued (more reads may raise
 * it) but are never polled, so they are not ordered among themselves: a write of such a block,
 * the common case for a written-mostly image, stops at the first parent instead of climbing
 * the heap.
 *
 * <p>Not thread-safe: its owner guards it together with the stats.
 */
final class PushQueue {
    private final AccessStats stats;
    private double k;
    private double s;
    private int[] heap = new int[16];
    /** Per entry, its index in {@link #heap} plus one; 0 when it is not queued. */
    private int[] positions = new int[16];
    private int size;

    PushQueue(AccessStats stats, double k, double s) {
        this.stats = stats;
        this.k = k;
        this.s = s;
    }

    /** Queues the entry, or moves it to its new rank when it is queued; true when it was not queued. */
    boolean add(int entry) {
        if (entry >= positions.length) {
            positions = Arrays.copyOf(positions, Math.max(entry + 1, positions.length * 2));
        }
        if (positions[entry] != 0) {
            changed(entry);
            return false;
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        place(entry, size++);
        siftUp(size - 1);
        return true;
    }

    /** Moves a queued entry to its rank after its counts changed; does nothing when it is not queued. */
    void changed(int entry) {
        if (contains(entry)) {
            int index = positions[entry] - 1;
            if (siftUp(index) == index) {
                siftDown(index);
            }
        }
    }

    boolean contains(int entry) {
        return entry < positions.length && positions[entry] != 0;
    }

    /** Whether {@link #poll()} would return an entry. */
    boolean hasPushable() {
        return size > 0 && stats.priority(heap[0], k, s) >= 0;
    }

    /** Removes and returns the entry of highest priority, or -1 when none has a priority of 0 or more. */
    int poll() {
        if (!hasPushable()) {
            return -1;
        }
        int top = heap[0];
        positions[top] = 0;
        size--;
        if (size > 0) {
            place(heap[size], 0);
            siftDown(0);
        }
        return top;
    }

    /** Ranks every queued entry by new knobs. */
    void retune(double k, double s) {
        this.k = k;
        this.s = s;
        for (int index = size / 2 - 1; index >= 0; index--) {
            siftDown(index);
        }
    }

    int size() {
        return size;
    }

    private int siftUp(int index) {
        int entry = heap[index];
        while (index > 0) {
            int parent = (index - 1) / 2;
            if (!before(entry, heap[parent])) {
                break;
            }
            place(heap[parent], index);
            index = parent;
        }
        place(entry, index);
        return index;
    }

    private void siftDown(int index) {
        int entry = heap[index];
        while (true) {
            int child = 2 * index + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], entry)) {
                break;
            }
            place(heap[child], index);
            index = child;
        }
        place(entry, index);
    }

    private void place(int entry, int index) {
        heap[index] = entry;
        positions[entry] = index + 1;
    }

    /** Whether {@code a} goes out before {@code b}. */
    private boolean before(int a, int b) {
        double priorityA = stats.priority(a, k, s);
        double priorityB = stats.priority(b, k, s);
        if (priorityA != priorityB) {
            return priorityA > priorityB;
        }
        if (priorityA < 0) {
            return false;
        }
        if (stats.reads(a) != stats.reads(b)) {
            return stats.reads(a) > stats.reads(b);
        }
        return stats.block(a) < stats.block(b);
    }
}
