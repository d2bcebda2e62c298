package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.HeliotropeException;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.SstFileManager;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.heliotrope.storage.rocksdb.IndexEntries.block;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;

/**
 * The RocksDB database of a {@link RocksBlockStore}, with its options and native handles,
 * which it closes in reverse order of creation, the block files last. Column families:
 * <ul>
 *   <li>{@code images}: name to {@code id | size | created | epoch} ({@link Catalog});</li>
 *   <li>{@code blocks}: the local metadata, an entry per block or per group of blocks written
 *   together ({@link IndexEntries});</li>
 *   <li>{@code inline}: block key to the data of a block whose entry says its copy is inline;</li>
 *   <li>{@code dirty}: block key to {@code version(8) | state(1)} for blocks not yet flushed to the controller,
 *   written in the same batch as the block ({@link DirtyLog});</li>
 *   <li>{@code view}: same key to {@code version(8) | holder} (UTF-8, empty for a zero marker): the cached
 *   global metadata ({@link RocksViewCache});</li>
 *   <li>default ({@code counters}): counters and each image's view metaSeq.</li>
 * </ul>
 */
final class IndexDb implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private static final Logger log = LoggerFactory.getLogger(IndexDb.class);
    private static final long WRITE_BUFFER_BYTES = 2L << 20;
    /**
     * Inline copies are 4 KiB each, and the memtable keeps every one until it flushes
     * (8K of them in 32 MiB), which writes only a block's last: a larger one flushes, and
     * syncs the block files, less often.
     */
    private static final long INLINE_BUFFER_BYTES = 32L << 20;
    /**
     * Free space below which writes of block data are refused ({@link DiskSpace}): room for
     * a new log's preallocation (1.1 x the largest memtable) and the flush of a full inline
     * memtable and of the small ones, with some to spare.
     */
    private static final long INDEX_RESERVE_BYTES = 3 * INLINE_BUFFER_BYTES;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final RocksDB db;
    final ColumnFamilyHandle counters;
    final ColumnFamilyHandle images;
    final ColumnFamilyHandle blocks;
    final ColumnFamilyHandle dirty;
    final ColumnFamilyHandle view;
    final ColumnFamilyHandle inline;
    private final WriteOptions asyncWrite;
    private final WriteOptions syncWrite;
    private final ReadOptions read;
    /** The free space of the file system the index and the block files are on. */
    final DiskSpace space;

    /** Opens the database in {@code directory}; from here on it owns {@code files}, and closes them after itself. */
    IndexDb(Path directory, long blockCacheBytes, BlockFiles files) throws RocksDBException, IOException {
        track(files);
        try {
            space = new DiskSpace(directory.getParent(), INDEX_RESERVE_BYTES);
            LRUCache cache = track(new LRUCache(blockCacheBytes));
            BloomFilter bloom = track(new BloomFilter(10));
            DBOptions options = track(new DBOptions()
                    .setCreateIfMissing(true)
                    .setCreateMissingColumnFamilies(true)
                    .setMaxBackgroundJobs(2)
                    .setBytesPerSync(1 << 20)
                    .setAllowMmapReads(true)
                    .setManualWalFlush(true)
                    // Resumes writing after a flush or compaction failed for lack of space, once there is room again.
                    .setSstFileManager(track(new SstFileManager(Env.getDefault())))
                    .setListeners(List.of(track(new SyncBlockFilesOnFlush(files)))));
            ColumnFamilyOptions small = track(new ColumnFamilyOptions()
                    .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(bloom))
                    .setCompressionType(CompressionType.LZ4_COMPRESSION)
                    // Small memtables: random writes insert keys all over an image, and a skiplist that stays in the
                    // CPU caches takes them several times faster (random 4 KiB writes over NBD, 1 GiB image:
                    // 66K/s with 64 MiB, 92K/s with 2 MiB). Flushing and compacting a 30-byte-per-block index is cheap.
                    .setWriteBufferSize(WRITE_BUFFER_BYTES)
                    // Random writes rewrite all of level 1 at each compaction from level 0: waiting for 8 files instead
                    // of 4 halves that work (random 4 KiB writes, 2 x 16 over NBD: 173K/s -> 179K/s, 7.6 -> 7.2 us of
                    // CPU each), and a point lookup's bloom filters skip the extra files (random reads unchanged).
                    .setLevel0FileNumCompactionTrigger(8));
            ColumnFamilyOptions copies = track(new ColumnFamilyOptions()
                    .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(bloom))
                    .setCompressionType(CompressionType.NO_COMPRESSION)
                    .setWriteBufferSize(INLINE_BUFFER_BYTES));
            List<ColumnFamilyDescriptor> descriptors = List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, small),
                    new ColumnFamilyDescriptor(bytes("images"), small),
                    new ColumnFamilyDescriptor(bytes("blocks"), small),
                    new ColumnFamilyDescriptor(bytes("dirty"), small),
                    new ColumnFamilyDescriptor(bytes("view"), small),
                    new ColumnFamilyDescriptor(bytes("inline"), copies));
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            db = space.open(options, directory, descriptors, handles);
            handles.forEach(this::track);
            counters = handles.get(0);
            images = handles.get(1);
            blocks = handles.get(2);
            dirty = handles.get(3);
            view = handles.get(4);
            inline = handles.get(5);
            asyncWrite = track(new WriteOptions());
            syncWrite = track(new WriteOptions().setSync(true));
            read = track(new ReadOptions());
        } catch (RocksDBException | IOException | RuntimeException e) {
            closeResources();
            throw e;
        }
    }

    /**
     * RocksDB syncs the SST files a memtable flush writes; the block files go first, so no
     * synced index entry points at data that a power loss could take back.
     */
    private static final class SyncBlockFilesOnFlush extends AbstractEventListener {
        private final BlockFiles files;

        SyncBlockFilesOnFlush(BlockFiles files) {
            super(EnabledEventCallback.ON_FLUSH_BEGIN);
            this.files = files;
        }

        @Override
        public void onFlushBegin(RocksDB flushing, FlushJobInfo info) {
            try {
                files.sync();
            } catch (RuntimeException e) {
                log.error("cannot sync block files before RocksDB flushes the index; a power loss now may leave blocks failing their checksums", e);
            }
        }
    }

    /** The families keyed by block, whose keys of an image go with it or with its blocks beyond a new end. */
    List<ColumnFamilyHandle> blockFamilies() {
        return List.of(blocks, dirty, view, inline);
    }

    byte[] get(ColumnFamilyHandle family, byte[] key) throws RocksDBException {
        return db.get(family, read, key);
    }

    /** The values of {@code keys} in one family, in their order, null where a key has none: one call into RocksDB. */
    List<byte[]> multiGet(ColumnFamilyHandle family, List<byte[]> keys) throws RocksDBException {
        if (keys.isEmpty()) {
            // RocksJava asserts that there are keys.
            return List.of();
        }
        return db.multiGetAsList(read, Collections.nCopies(keys.size(), family), keys);
    }

    /** Commits a batch to the WAL's buffer: durable after the next {@link #syncWal()}. */
    void write(WriteBatch batch) throws RocksDBException {
        db.write(asyncWrite, batch);
    }

    /** Commits a batch and syncs the WAL, and so every batch committed before it. */
    void writeAndSyncWal(WriteBatch batch) throws RocksDBException {
        db.write(syncWrite, batch);
    }

    void syncWal() throws RocksDBException {
        db.flushWal(true);
    }

    /** An iterator over a family with these options; the caller closes it. */
    RocksIterator iterator(ColumnFamilyHandle family, ReadOptions options) {
        return db.newIterator(family, options);
    }

    /** Visits the entries of an image in a family keyed by block that has no group entries. */
    void scan(ColumnFamilyHandle family, long imageId, EntryVisitor visitor) {
        try (Slice upper = new Slice(key(imageId + 1, 0));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(family, options)) {
            for (iterator.seek(key(imageId, 0)); iterator.isValid(); iterator.next()) {
                visitor.visit(block(iterator.key()), iterator.value());
            }
        }
    }

    interface EntryVisitor {
        void visit(long block, byte[] value);
    }

    /** Visits every key of a family, in order. */
    void forEach(ColumnFamilyHandle family, KeyValueVisitor visitor) {
        try (RocksIterator iterator = db.newIterator(family)) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                visitor.visit(iterator.key(), iterator.value());
            }
        }
    }

    interface KeyValueVisitor {
        void visit(byte[] key, byte[] value);
    }

    /** A RocksDB property summed over the column families. */
    long longProperty(String property) {
        long total = 0;
        for (ColumnFamilyHandle handle : List.of(counters, images, blocks, dirty, view, inline)) {
            try {
                total += db.getLongProperty(handle, property);
            } catch (RocksDBException e) {
                throw failure("read property " + property, e);
            }
        }
        return total;
    }

    /** Flushes the index's memtables to SST files now and waits, for tests. */
    void flushBlocks() {
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            db.flush(options, List.of(blocks));
        } catch (RocksDBException e) {
            throw failure("flush the index", e);
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    @Override
    public void close() {
        db.close();
        closeResources();
    }

    private void closeResources() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception ignored) {
                // Closing native handles only frees memory; nothing is left to undo.
            }
        }
        resources.clear();
    }

    static HeliotropeException failure(String action, RocksDBException e) {
        return StorageErrors.failure("RocksDB failed to " + action, e);
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }
}
