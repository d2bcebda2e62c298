package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import org.rocksdb.RocksDBException;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;
import static io.heliotrope.storage.rocksdb.IndexCache.NO_DATA;
import static io.heliotrope.storage.rocksdb.IndexEntries.INLINE;
import static io.heliotrope.storage.rocksdb.IndexEntries.SLOT;
import static io.heliotrope.storage.rocksdb.IndexEntries.blockVersion;
import static io.heliotrope.storage.rocksdb.IndexEntries.checksum;
import static io.heliotrope.storage.rocksdb.IndexEntries.crc;
import static io.heliotrope.storage.rocksdb.IndexEntries.groupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.isData;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static io.heliotrope.storage.rocksdb.IndexEntries.ofGroup;
import static java.util.Objects.requireNonNull;

/**
 * The read path of a {@link RocksBlockStore}. Takes no lock: a read that races a second
 * write to its slot, or the replacement of an inline copy, fails the checksum and reads
 * the block again. Reads of many blocks find them through an {@link IndexCache} of whole
 * groups, which every change to the index invalidates.
 */
final class BlockReader {
    private static final byte[] ZEROS = new byte[BLOCK_SIZE];
    /** Reads of this many blocks (256 KiB) or more cache the index entries of the groups they touch. */
    private static final int CACHING_READ_BLOCKS = 64;

    private final IndexDb index;
    private final BlockFiles files;
    private final IndexCache cache;
    private final IndexScan scan;

    BlockReader(IndexDb index, BlockFiles files, IndexCache cache, IndexScan scan) {
        this.index = requireNonNull(index, "index is null");
        this.files = requireNonNull(files, "files is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.scan = requireNonNull(scan, "scan is null");
    }

    void read(long imageId, long firstBlock, int count, ByteBuffer destination) {
        int start = destination.position();
        byte[] slots = new byte[count];
        int[] crcs = new int[count];
        locate(imageId, firstBlock, count, slots, crcs);
        // Blocks in the same slot of one group lie together in the file: read each such run at once.
        for (int from = 0, to; from < count; from = to) {
            to = from + 1;
            if (slots[from] == NO_DATA) {
                destination.put(start + from * BLOCK_SIZE, ZEROS);
                continue;
            }
            if (slots[from] == INLINE) {
                ByteBuffer block = destination.slice(start + from * BLOCK_SIZE, BLOCK_SIZE);
                if (!readCopy(imageId, firstBlock + from, INLINE, crcs[from], block)) {
                    rereadBlock(imageId, firstBlock + from, INLINE, crcs[from], block);
                }
                continue;
            }
            long offset = BlockFiles.offset(firstBlock + from, slots[from]);
            while (to < count && (slots[to] == 0 || slots[to] == 1)
                    && BlockFiles.offset(firstBlock + to, slots[to]) == offset + (long) (to - from) * BLOCK_SIZE) {
                to++;
            }
            files.read(imageId, offset, destination.slice(start + from * BLOCK_SIZE, (to - from) * BLOCK_SIZE));
            for (int i = from; i < to; i++) {
                ByteBuffer block = destination.slice(start + i * BLOCK_SIZE, BLOCK_SIZE);
                if (checksum(block) != crcs[i]) {
                    rereadBlock(imageId, firstBlock + i, slots[i], crcs[i], block);
                }
            }
        }
        destination.position(start + count * BLOCK_SIZE);
    }

    /**
     * Reads blocks with the versions of their copies: each block's data is checked against
     * the checksum of the entry it was found by, and one that a write moved meanwhile is
     * read again by its new entry, so a version always comes with its own data.
     */
    List<BlockVersion> readCopies(long imageId, long[] blocks, ByteBuffer destination) {
        byte[][] entries = scan.entries(imageId, blocks);
        int start = destination.position();
        List<BlockVersion> versions = new ArrayList<>(blocks.length);
        for (int i = 0; i < blocks.length; i++) {
            ByteBuffer data = destination.slice(start + i * BLOCK_SIZE, BLOCK_SIZE);
            byte[] entry = entries[i];
            if (entry == null || !isData(entry)) {
                data.put(0, ZEROS);
            } else if (!readCopy(imageId, blocks[i], entry[SLOT], crc(entry), data)) {
                entry = rereadBlock(imageId, blocks[i], entry[SLOT], crc(entry), data);
            }
            versions.add(entry == null ? new BlockVersion(blocks[i], 0, BlockState.UNWRITTEN) : blockVersion(blocks[i], entry));
        }
        destination.position(start + blocks.length * BLOCK_SIZE);
        return versions;
    }

    /**
     * Reads one block again after its data failed the checksum: a write may have moved the
     * block on and a second one reused its slot, or replaced or dropped its inline copy,
     * during the read. Returns the entry the data read belongs to, null for a block with none.
     * Fails when the block's entry still gives the same slot and checksum, so the data is damaged.
     */
    private byte[] rereadBlock(long imageId, long block, int slot, int crc, ByteBuffer destination) {
        for (int attempt = 0; attempt < 8; attempt++) {
            byte[] entry = entry(imageId, block);
            if (entry == null || !isData(entry)) {
                destination.put(0, ZEROS);
                return entry;
            }
            if (entry[SLOT] == slot && crc(entry) == crc) {
                break;
            }
            slot = entry[SLOT];
            crc = crc(entry);
            if (readCopy(imageId, block, slot, crc, destination)) {
                return entry;
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image " + imageId + ": data of block " + block
                + (slot == INLINE ? " in the index" : " at offset " + BlockFiles.offset(block, slot) + " of its block file") + " fails its checksum");
    }

    /** Reads a block's copy in {@code slot} into {@code destination}; false if it is gone or fails {@code crc}. */
    private boolean readCopy(long imageId, long block, int slot, int crc, ByteBuffer destination) {
        if (slot == INLINE) {
            byte[] data;
            try {
                data = index.get(index.inline, key(imageId, block));
            } catch (RocksDBException e) {
                throw IndexDb.failure("read image " + imageId, e);
            }
            if (data == null) {
                return false;
            }
            destination.put(0, data);
        } else {
            files.read(imageId, BlockFiles.offset(block, slot), destination.duplicate());
        }
        return checksum(destination) == crc;
    }

    /**
     * A block's entry: its own, else the one its group's entry gives it. Looked up in that
     * order, a block entry that a group write deletes is seen or the group entry is.
     */
    private byte[] entry(long imageId, long block) {
        try {
            byte[] own = index.get(index.blocks, key(imageId, block));
            if (own != null) {
                return own;
            }
            byte[] group = index.get(index.blocks, groupKey(imageId, block / GROUP));
            return group == null ? null : ofGroup(group, (int) (block % GROUP));
        } catch (RocksDBException e) {
            throw IndexDb.failure("read image " + imageId, e);
        }
    }

    /**
     * Gives each block of the range the slot of its data ({@link IndexCache#NO_DATA} for
     * none) and its checksum: from the cache where it has the block's group, else from the
     * index. A read of {@value #CACHING_READ_BLOCKS} blocks or more caches the groups it
     * reads whole; a smaller one reads just its blocks' entries, as a random read of a few
     * blocks would pay more for loading their group than it saves.
     */
    private void locate(long imageId, long firstBlock, int count, byte[] slots, int[] crcs) {
        long end = firstBlock + count;
        for (long group = firstBlock / GROUP; group * GROUP < end; group++) {
            long from = Math.max(firstBlock, group * GROUP);
            int length = (int) (Math.min(end, (group + 1) * GROUP) - from);
            int at = (int) (from - firstBlock);
            IndexCache.Group cached = cache.get(imageId, group);
            if (cached == null && count >= CACHING_READ_BLOCKS) {
                cached = loadGroup(imageId, group);
            }
            if (cached != null) {
                System.arraycopy(cached.slots(), (int) (from % GROUP), slots, at, length);
                System.arraycopy(cached.crcs(), (int) (from % GROUP), crcs, at, length);
            } else if (count == 1) {
                locate(entry(imageId, firstBlock), slots, crcs, 0);
            } else {
                Arrays.fill(slots, at, at + length, NO_DATA);
                scan.forEachEntry(imageId, from, from + length, (block, entry) -> locate(entry, slots, crcs, (int) (block - firstBlock)));
            }
        }
    }

    /** Reads a group's entries from the index into the cache. */
    private IndexCache.Group loadGroup(long imageId, long group) {
        long stamp = cache.stamp(imageId, group);
        byte[] slots = new byte[GROUP];
        int[] crcs = new int[GROUP];
        Arrays.fill(slots, NO_DATA);
        scan.forEachEntry(imageId, group * GROUP, (group + 1) * GROUP, (block, entry) -> locate(entry, slots, crcs, (int) (block % GROUP)));
        IndexCache.Group loaded = new IndexCache.Group(imageId, group, stamp, slots, crcs);
        cache.put(loaded);
        return loaded;
    }

    private static void locate(byte[] entry, byte[] slots, int[] crcs, int index) {
        if (entry == null || !isData(entry)) {
            slots[index] = NO_DATA;
        } else {
            slots[index] = entry[SLOT];
            crcs[index] = crc(entry);
        }
    }
}
