package io.heliotrope.storage.rocksdb;

import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;
import static io.heliotrope.storage.rocksdb.IndexEntries.isInline;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static java.util.Objects.requireNonNull;

/**
 * Per image, the groups known to have no block entries of their own in the index, so a
 * whole-group write need not look for entries to delete (a RocksDB seek, a tenth of the
 * time of a 1 MiB write). Known only from what writes since the store opened did: a
 * group written whole has none, until a write gives one of its blocks an entry. Kept in
 * bit sets of {@value #CHUNK_GROUPS} groups (64 GiB of image), made when a group in them
 * is first written whole. Not thread-safe; the store's write lock guards it.
 */
final class GroupsWithoutBlockEntries {
    private static final int CHUNK_GROUPS = 1 << 16;

    private record Chunk(long imageId, long index) {}

    private final IndexDb index;
    private final IndexScan scan;
    private final Map<Chunk, BitSet> chunks = new HashMap<>();

    GroupsWithoutBlockEntries(IndexDb index, IndexScan scan) {
        this.index = requireNonNull(index, "index is null");
        this.scan = requireNonNull(scan, "scan is null");
    }

    /**
     * Adds to the batch the deletion of the entries of a group's blocks (and of their inline
     * copies), which its new group entry replaces; nothing to look for in a group known to
     * have none.
     */
    void deleteBlockEntries(WriteBatch batch, long imageId, long group) throws RocksDBException {
        if (contains(imageId, group)) {
            return;
        }
        scan.forEachGroup(imageId, group * GROUP, (group + 1) * GROUP, Integer.MAX_VALUE, (first, groupEntry, own) -> {
            for (int i = 0; i < GROUP; i++) {
                if (own[i] != null) {
                    batch.delete(index.blocks, key(imageId, first + i));
                    if (isInline(own[i])) {
                        batch.delete(index.inline, key(imageId, first + i));
                    }
                }
            }
        });
    }

    private boolean contains(long imageId, long group) {
        BitSet groups = chunks.get(chunkOf(imageId, group));
        return groups != null && groups.get(bit(group));
    }

    /** Records that the group's block entries were deleted, once that is committed. */
    void add(long imageId, long group) {
        chunks.computeIfAbsent(chunkOf(imageId, group), chunk -> new BitSet(CHUNK_GROUPS)).set(bit(group));
    }

    /** Records that a block of the group gets an entry of its own, before that is committed. */
    void remove(long imageId, long group) {
        BitSet groups = chunks.get(chunkOf(imageId, group));
        if (groups != null) {
            groups.clear(bit(group));
        }
    }

    void forget(long imageId) {
        chunks.keySet().removeIf(chunk -> chunk.imageId() == imageId);
    }

    private static Chunk chunkOf(long imageId, long group) {
        return new Chunk(imageId, group / CHUNK_GROUPS);
    }

    private static int bit(long group) {
        return (int) (group % CHUNK_GROUPS);
    }
}
