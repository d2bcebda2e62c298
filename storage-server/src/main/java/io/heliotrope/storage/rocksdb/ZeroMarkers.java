package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.Dirty;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;
import static io.heliotrope.storage.rocksdb.IndexEntries.SLOT;
import static io.heliotrope.storage.rocksdb.IndexEntries.STATE_ZERO;
import static io.heliotrope.storage.rocksdb.IndexEntries.groupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.isData;
import static io.heliotrope.storage.rocksdb.IndexEntries.isInline;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static io.heliotrope.storage.rocksdb.IndexEntries.zeroEntry;
import static io.heliotrope.storage.rocksdb.IndexEntries.zeroGroupEntry;
import static java.util.Objects.requireNonNull;

/**
 * Zero markers in place of blocks' data: a marker keeps the slot of the block's last
 * data, and drops its inline copy. Not thread-safe: it runs under the
 * {@link WritePipeline}'s write lock.
 */
final class ZeroMarkers {
    /** Groups one batch of a range's markers covers at most, so writes wait briefly. */
    private static final int MAX_BATCH_GROUPS = 64;

    private final IndexDb index;
    private final IndexCache cache;
    private final IndexScan scan;
    private final FreeSlots freeSlots;
    private final GroupsWithoutBlockEntries withoutBlockEntries;
    private final DirtyLog dirtyLog;

    ZeroMarkers(IndexDb index, IndexCache cache, IndexScan scan, FreeSlots freeSlots, GroupsWithoutBlockEntries withoutBlockEntries,
            DirtyLog dirtyLog) {
        this.index = requireNonNull(index, "index is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.scan = requireNonNull(scan, "scan is null");
        this.freeSlots = requireNonNull(freeSlots, "freeSlots is null");
        this.withoutBlockEntries = requireNonNull(withoutBlockEntries, "withoutBlockEntries is null");
        this.dirtyLog = requireNonNull(dirtyLog, "dirtyLog is null");
    }

    /**
     * Commits zero markers for the data blocks of {@code [firstBlock, end)} in the first
     * {@value #MAX_BATCH_GROUPS} groups with entries from block {@code from} on; returns
     * where the next batch starts, or -1 when the range is done.
     */
    long zeroSome(long imageId, long from, long firstBlock, long end, long version, Dirty dirty) throws RocksDBException {
        try (WriteBatch batch = new WriteBatch()) {
            long next = scan.forEachGroup(imageId, from, end, MAX_BATCH_GROUPS,
                    (groupFirst, groupEntry, own) -> zeroGroup(batch, imageId, groupFirst, groupEntry, own, firstBlock, end, version, dirty));
            index.write(batch);
            cache.changed(imageId, from, (next < 0 ? end : next) - from);
            return next;
        }
    }

    /**
     * Zero markers for the data blocks of one group in {@code [first, end)}: one group entry
     * when the range covers a group written whole, in place of its blocks' data entries.
     */
    private void zeroGroup(WriteBatch batch, long imageId, long groupFirst, byte[] groupEntry, byte[][] own, long first, long end, long version,
            Dirty dirty) throws RocksDBException {
        boolean whole = first <= groupFirst && groupFirst + GROUP <= end && groupEntry != null && isData(groupEntry);
        byte[] dirtyEntry = DirtyLog.entry(version, STATE_ZERO);
        int[] slots = new int[GROUP];
        for (int i = 0; i < GROUP; i++) {
            long block = groupFirst + i;
            byte[] entry = IndexScan.resolve(own[i], groupEntry, i);
            if (entry == null || block < first || block >= end) {
                continue;
            }
            slots[i] = entry[SLOT];
            if (!isData(entry)) {
                continue;
            }
            byte[] key = key(imageId, block);
            if (isInline(entry)) {
                batch.delete(index.inline, key);
            }
            if (!whole) {
                withoutBlockEntries.remove(imageId, groupFirst / GROUP);
                batch.put(index.blocks, key, zeroEntry(version, entry[SLOT]));
            } else if (own[i] != null) {
                batch.delete(index.blocks, key);
            }
            if (dirty == Dirty.RECORD) {
                dirtyLog.record(batch, key, dirtyEntry);
            }
        }
        if (whole) {
            batch.put(index.blocks, groupKey(imageId, groupFirst / GROUP), zeroGroupEntry(version, slots));
        }
    }

    /** Commits zero markers on exactly these blocks, whatever state they are in, block {@code blocks[i]} at {@code versions[i]}. */
    void zeroBlocks(long imageId, long[] blocks, long[] versions, Dirty dirty) throws RocksDBException {
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < blocks.length; i++) {
                long block = blocks[i];
                withoutBlockEntries.remove(imageId, block / GROUP);
                batch.put(index.blocks, key(imageId, block), zeroEntry(versions[i], 1 - freeSlots.next(imageId, block)));
                if (freeSlots.inline(imageId, block)) {
                    batch.delete(index.inline, key(imageId, block));
                }
                if (dirty == Dirty.RECORD) {
                    dirtyLog.record(batch, key(imageId, block), DirtyLog.entry(versions[i], STATE_ZERO));
                }
            }
            index.write(batch);
            for (long block : blocks) {
                cache.changed(imageId, block, 1);
            }
        }
    }
}
