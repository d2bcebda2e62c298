package io.heliotrope.controller.metadata;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Block metadata: for each block its latest version and the site holding it, or a zero
 * marker. Sorted by block, one entry a block. A flush delta, a snapshot and the
 * materialized view of an image all have this shape. Immutable; columns of primitives,
 * so that a million entries take 20 MB, not 100.
 */
public final class BlockEntries {
    public static final BlockEntries EMPTY = new BlockEntries(List.of(), new long[0], new long[0], new int[0]);

    private final List<String> sites;
    private final long[] blocks;
    private final long[] versions;
    private final int[] holders;

    /** Trusts its caller: blocks strictly ascending, holders within {@code sites}. */
    BlockEntries(List<String> sites, long[] blocks, long[] versions, int[] holders) {
        this.sites = List.copyOf(sites);
        this.blocks = blocks;
        this.versions = versions;
        this.holders = holders;
    }

    public static Builder builder() {
        return new Builder();
    }

    public int size() {
        return blocks.length;
    }

    public long block(int i) {
        return blocks[i];
    }

    public long version(int i) {
        return versions[i];
    }

    /** 0 for a zero marker, else the 1-based index of the holding site in {@link #sites()}. */
    public int holder(int i) {
        return holders[i];
    }

    /** The holder table; it may name sites no entry refers to. */
    public List<String> sites() {
        return sites;
    }

    /** Entries {@code from} (inclusive) to {@code to} (exclusive), with the same site table. */
    public BlockEntries slice(int from, int to) {
        return new BlockEntries(sites, Arrays.copyOfRange(blocks, from, to), Arrays.copyOfRange(versions, from, to),
                Arrays.copyOfRange(holders, from, to));
    }

    /** How many entries each holder index has: element 0 counts zero markers. */
    public long[] countByHolder() {
        long[] counts = new long[sites.size() + 1];
        for (int holder : holders) {
            counts[holder]++;
        }
        return counts;
    }

    /** Applies deltas in order to a base: for a block, the entry of the latest delta wins. */
    public static BlockEntries apply(BlockEntries base, List<BlockEntries> deltas) {
        List<BlockEntries> level = new ArrayList<>(deltas);
        while (level.size() > 1) {
            List<BlockEntries> next = new ArrayList<>((level.size() + 1) / 2);
            for (int i = 0; i < level.size(); i += 2) {
                next.add(i + 1 < level.size() ? merge(level.get(i), level.get(i + 1)) : level.get(i));
            }
            level = next;
        }
        return level.isEmpty() ? base : merge(base, level.get(0));
    }

    static BlockEntries merge(BlockEntries older, BlockEntries newer) {
        if (newer.size() == 0) {
            return older;
        }
        if (older.size() == 0) {
            return newer;
        }
        List<String> sites = new ArrayList<>(older.sites);
        int[] remap = new int[newer.sites.size() + 1];
        for (int j = 0; j < newer.sites.size(); j++) {
            int index = sites.indexOf(newer.sites.get(j));
            if (index < 0) {
                sites.add(newer.sites.get(j));
                index = sites.size() - 1;
            }
            remap[j + 1] = index + 1;
        }
        int capacity = older.size() + newer.size();
        long[] blocks = new long[capacity];
        long[] versions = new long[capacity];
        int[] holders = new int[capacity];
        int a = 0;
        int b = 0;
        int n = 0;
        while (a < older.size() || b < newer.size()) {
            if (b == newer.size() || (a < older.size() && older.blocks[a] < newer.blocks[b])) {
                blocks[n] = older.blocks[a];
                versions[n] = older.versions[a];
                holders[n] = older.holders[a];
                a++;
            } else {
                if (a < older.size() && older.blocks[a] == newer.blocks[b]) {
                    a++;
                }
                blocks[n] = newer.blocks[b];
                versions[n] = newer.versions[b];
                holders[n] = remap[newer.holders[b]];
                b++;
            }
            n++;
        }
        return new BlockEntries(sites, Arrays.copyOf(blocks, n), Arrays.copyOf(versions, n), Arrays.copyOf(holders, n));
    }

    private String holderName(int i) {
        return holders[i] == 0 ? "" : sites.get(holders[i] - 1);
    }

    /** Equal when they hold the same blocks, versions and holder names, whatever the order of their site tables. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof BlockEntries other) || !Arrays.equals(blocks, other.blocks) || !Arrays.equals(versions, other.versions)) {
            return false;
        }
        for (int i = 0; i < holders.length; i++) {
            if (!holderName(i).equals(other.holderName(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(blocks) + Arrays.hashCode(versions);
    }

    @Override
    public String toString() {
        return "BlockEntries[" + size() + " entries, sites " + sites + "]";
    }

    /** Collects entries in any order; {@link #build} sorts them, and for a block listed twice the later entry wins. */
    public static final class Builder {
        private final List<String> sites = new ArrayList<>();
        private long[] blocks = new long[1024];
        private long[] versions = new long[1024];
        private int[] holders = new int[1024];
        private int size;
        private boolean sorted = true;

        private Builder() {}

        /** The holder index of {@code name}, added to the site table when new. */
        public int site(String name) {
            int index = sites.indexOf(name);
            if (index < 0) {
                sites.add(name);
                index = sites.size() - 1;
            }
            return index + 1;
        }

        public Builder add(long block, long version, String site) {
            return add(block, version, site(site));
        }

        public Builder addZero(long block, long version) {
            return add(block, version, 0);
        }

        /** Adds an entry; {@code holder} is 0 for a zero marker or an index from {@link #site}. */
        public Builder add(long block, long version, int holder) {
            if (holder < 0 || holder > sites.size()) {
                throw new IllegalArgumentException("holder " + holder + " is not in the site table " + sites);
            }
            if (size == blocks.length) {
                int capacity = blocks.length * 2;
                blocks = Arrays.copyOf(blocks, capacity);
                versions = Arrays.copyOf(versions, capacity);
                holders = Arrays.copyOf(holders, capacity);
            }
            if (size > 0 && block < blocks[size - 1]) {
                sorted = false;
            }
            blocks[size] = block;
            versions[size] = version;
            holders[size] = holder;
            size++;
            return this;
        }

        public int size() {
            return size;
        }

        public BlockEntries build() {
            int[] order = sorted ? null : StableSort.byKey(blocks, size);
            long[] outBlocks = new long[size];
            long[] outVersions = new long[size];
            int[] outHolders = new int[size];
            int n = 0;
            for (int k = 0; k < size; k++) {
                int i = order == null ? k : order[k];
                if (k + 1 < size && blocks[order == null ? k + 1 : order[k + 1]] == blocks[i]) {
                    continue;
                }
                outBlocks[n] = blocks[i];
                outVersions[n] = versions[i];
                outHolders[n] = holders[i];
                n++;
            }
            return new BlockEntries(sites, Arrays.copyOf(outBlocks, n), Arrays.copyOf(outVersions, n), Arrays.copyOf(outHolders, n));
        }
    }
}
