package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.BlockVersion;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.storage.rocksdb.IndexEntries.blockVersion;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static java.util.Objects.requireNonNull;

/**
 * The {@code dirty} column family: block key to {@code version(8) | state(1)} for the blocks
 * written or zeroed here and not yet flushed to the controller. A write that records its
 * blocks as dirty puts their entries into the batch of its index entries, so a crash
 * loses no metadata.
 */
final class DirtyLog {
    private static final int ENTRY = 9;

    private final IndexDb index;

    DirtyLog(IndexDb index) {
        this.index = requireNonNull(index, "index is null");
    }

    /** The dirty entry of a block at {@code version} in {@code state}, one for all the blocks a write or zero changes. */
    static byte[] entry(long version, byte state) {
        return ByteBuffer.allocate(ENTRY).putLong(version).put(state).array();
    }

    /** Adds a block's dirty entry to the batch that changes the block. */
    void record(WriteBatch batch, byte[] key, byte[] entry) throws RocksDBException {
        batch.put(index.dirty, key, entry);
    }

    List<BlockVersion> blocks(long imageId) {
        List<BlockVersion> entries = new ArrayList<>();
        index.scan(index.dirty, imageId, (block, value) -> entries.add(blockVersion(block, value)));
        return entries;
    }

    /**
     * Forgets the dirty entries that still hold these versions; a block written again since
     * stays dirty. Run it under the write lock, so no write slips in between the comparison
     * and the delete.
     */
    void forget(long imageId, List<BlockVersion> flushed) throws RocksDBException {
        try (WriteBatch batch = new WriteBatch()) {
            for (BlockVersion entry : flushed) {
                byte[] key = key(imageId, entry.block());
                byte[] value = index.get(index.dirty, key);
                if (value != null && blockVersion(entry.block(), value).equals(entry)) {
                    batch.delete(index.dirty, key);
                }
            }
            index.write(batch);
        }
    }
}
