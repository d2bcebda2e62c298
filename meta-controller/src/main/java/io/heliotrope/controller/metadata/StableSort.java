package io.heliotrope.controller.metadata;

/** A stable sort of indexes by a column of longs, without boxing: insertion-sorted runs, then bottom-up merges. */
final class StableSort {
    private static final int RUN = 32;

    private StableSort() {}

    /** The indexes 0..n-1 in ascending order of {@code keys}; equal keys keep their order. */
    static int[] byKey(long[] keys, int n) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int from = 0; from < n; from += RUN) {
            insertionSort(keys, order, from, Math.min(from + RUN, n));
        }
        int[] buffer = new int[n];
        for (int width = RUN; width < n; width *= 2) {
            for (int low = 0; low < n - width; low += 2 * width) {
                merge(keys, order, buffer, low, low + width, Math.min(low + 2 * width, n));
            }
        }
        return order;
    }

    private static void insertionSort(long[] keys, int[] order, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            int index = order[i];
            long key = keys[index];
            int j = i - 1;
            while (j >= from && keys[order[j]] > key) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = index;
        }
    }

    private static void merge(long[] keys, int[] order, int[] buffer, int low, int middle, int high) {
        if (keys[order[middle - 1]] <= keys[order[middle]]) {
            return;
        }
        System.arraycopy(order, low, buffer, low, high - low);
        int a = low;
        int b = middle;
        int k = low;
        while (a < middle && b < high) {
            order[k++] = keys[buffer[b]] < keys[buffer[a]] ? buffer[b++] : buffer[a++];
        }
        while (a < middle) {
            order[k++] = buffer[a++];
        }
        while (b < high) {
            order[k++] = buffer[b++];
        }
    }
}
