package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.BlockRun;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.ImageUsage;
import io.heliotrope.storage.rocksdb.IndexDb.EntryVisitor;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;
import static io.heliotrope.storage.rocksdb.IndexEntries.SLOT;
import static io.heliotrope.storage.rocksdb.IndexEntries.block;
import static io.heliotrope.storage.rocksdb.IndexEntries.blockVersion;
import static io.heliotrope.storage.rocksdb.IndexEntries.groupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.isData;
import static io.heliotrope.storage.rocksdb.IndexEntries.isGroupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static io.heliotrope.storage.rocksdb.IndexEntries.ofGroup;
import static java.util.Objects.requireNonNull;

/**
 * Walks the {@code blocks} column family of an image in block order, giving each block
 * its own entry or, where it has none, the one its group's entry gives it; and the
 * answers built on that walk. Takes no lock.
 */
final class IndexScan {
    private final IndexDb index;

    IndexScan(IndexDb index) {
        this.index = requireNonNull(index, "index is null");
    }

    interface GroupVisitor {
        /** {@code own[i]} is the entry of block {@code groupFirst + i}, if it has one; the array is reused. */
        void visit(long groupFirst, byte[] groupEntry, byte[][] own) throws RocksDBException;
    }

    ImageUsage usage(long imageId) {
        long[] counts = new long[2];
        forEachEntry(imageId, 0, -1, (block, entry) -> counts[isData(entry) ? 0 : 1]++);
        return new ImageUsage(counts[0], counts[1]);
    }

    void forEachBlock(long imageId, Consumer<BlockVersion> visitor) {
        forEachEntry(imageId, 0, -1, (block, entry) -> visitor.accept(blockVersion(block, entry)));
    }

    List<BlockRun> allocation(long imageId, long firstBlock, long count) {
        List<BlockRun> runs = new ArrayList<>();
        long end = firstBlock + count;
        long[] next = {firstBlock};
        forEachEntry(imageId, firstBlock, end, (block, entry) -> {
            BlockRun.append(runs, next[0], block - next[0], BlockState.UNWRITTEN);
            BlockRun.append(runs, block, 1, isData(entry) ? BlockState.DATA : BlockState.ZERO);
            next[0] = block + 1;
        });
        BlockRun.append(runs, next[0], end - next[0], BlockState.UNWRITTEN);
        return runs;
    }

    /** The blocks' entries of a range, null where a block has none. */
    byte[][] entries(long imageId, long firstBlock, int count) {
        byte[][] entries = new byte[count][];
        forEachEntry(imageId, firstBlock, firstBlock + count, (block, entry) -> entries[(int) (block - firstBlock)] = entry);
        return entries;
    }

    /**
     * The entries of these blocks, in their order, null where a block has none, in two calls
     * into RocksDB however many blocks there are: the blocks' own entries, then the group
     * entries of those that have none. Looked up in that order, a block entry that a group
     * write deletes meanwhile is seen or the group entry is.
     */
    byte[][] entries(long imageId, long[] blocks) {
        List<byte[]> keys = new ArrayList<>(blocks.length);
        for (long block : blocks) {
            keys.add(key(imageId, block));
        }
        try {
            byte[][] entries = index.multiGet(index.blocks, keys).toArray(byte[][]::new);
            int[] withoutOwn = new int[blocks.length];
            List<byte[]> groupKeys = new ArrayList<>();
            for (int i = 0; i < blocks.length; i++) {
                if (entries[i] == null) {
                    withoutOwn[groupKeys.size()] = i;
                    groupKeys.add(groupKey(imageId, blocks[i] / GROUP));
                }
            }
            List<byte[]> groupEntries = index.multiGet(index.blocks, groupKeys);
            for (int j = 0; j < groupKeys.size(); j++) {
                int i = withoutOwn[j];
                entries[i] = resolve(null, groupEntries.get(j), (int) (blocks[i] % GROUP));
            }
            return entries;
        } catch (RocksDBException e) {
            throw IndexDb.failure("read the index of image " + imageId, e);
        }
    }

    /** What {@link FreeSlots} loads. */
    void loadSlots(long imageId, long firstBlock, long count, FreeSlots.SlotVisitor found) {
        forEachEntry(imageId, firstBlock, firstBlock + count, (block, entry) -> found.visit(block, entry[SLOT], isData(entry)));
    }

    /**
     * Visits, in block order, each block of {@code [firstBlock, end)} that has an entry, its
     * own or one its group's entry gives it; an end of -1 means to the image's last block.
     */
    void forEachEntry(long imageId, long firstBlock, long end, EntryVisitor visitor) {
        try {
            forEachGroup(imageId, firstBlock, end, Integer.MAX_VALUE, (groupFirst, groupEntry, own) -> {
                for (int i = 0; i < GROUP; i++) {
                    long block = groupFirst + i;
                    byte[] entry = resolve(own[i], groupEntry, i);
                    if (entry != null && block >= firstBlock && (end < 0 || block < end)) {
                        visitor.visit(block, entry);
                    }
                }
            });
        } catch (RocksDBException e) {
            throw IndexDb.failure("read the index of image " + imageId, e);
        }
    }

    /** The entry of a group's {@code index}-th block: its own if it has one, else what the group's entry gives it, or null. */
    static byte[] resolve(byte[] own, byte[] groupEntry, int index) {
        return own != null ? own : groupEntry != null ? ofGroup(groupEntry, index) : null;
    }

    /**
     * Visits, in order, up to {@code maxGroups} groups that have entries for blocks in
     * {@code [firstBlock, end)} (-1: to the image's end), with their group entry and the
     * entries of their blocks in that range. Returns the first block of the next group with
     * entries, or -1 when there is none.
     */
    long forEachGroup(long imageId, long firstBlock, long end, int maxGroups, GroupVisitor visitor) throws RocksDBException {
        byte[][] own = new byte[GROUP][];
        try (Slice upper = new Slice(end < 0 ? key(imageId + 1, 0) : key(imageId, end));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = index.iterator(index.blocks, options)) {
            long current = -1;
            byte[] groupEntry = null;
            if (firstBlock % GROUP != 0) {
                // The entry of the first block's group sorts before the first block: looked up after the
                // iterator was made, so a block whose own entry a group write deleted since is seen in either.
                current = firstBlock / GROUP * GROUP;
                groupEntry = index.get(index.blocks, groupKey(imageId, firstBlock / GROUP));
            }
            int visited = 0;
            for (iterator.seek(key(imageId, firstBlock)); iterator.isValid(); iterator.next()) {
                byte[] key = iterator.key();
                long groupFirst = block(key) / GROUP * GROUP;
                if (groupFirst != current) {
                    if (current >= 0) {
                        visitor.visit(current, groupEntry, own);
                        Arrays.fill(own, null);
                        groupEntry = null;
                        if (++visited == maxGroups) {
                            return groupFirst;
                        }
                    }
                    current = groupFirst;
                }
                if (isGroupKey(key)) {
                    groupEntry = iterator.value();
                } else {
                    own[(int) (block(key) - groupFirst)] = iterator.value();
                }
            }
            if (current >= 0) {
                visitor.visit(current, groupEntry, own);
            }
            return -1;
        }
    }
}
