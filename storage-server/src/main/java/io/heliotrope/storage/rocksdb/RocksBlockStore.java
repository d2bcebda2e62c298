package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.ImageNames;
import io.heliotrope.storage.segment.SegmentLog;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

import static io.heliotrope.storage.ImageNames.checkName;
import static io.heliotrope.storage.ImageNames.checkSize;
import static java.util.Objects.requireNonNull;

/**
 * A {@link BlockStore} with its index in RocksDB and block data in append-only segment
 * files (a log-structured block store). Column families:
 * <ul>
 *   <li>{@code images}: name to {@code id | size | created | epoch};</li>
 *   <li>{@code blocks}: {@code imageId(8) | block(8)} big-endian to {@code version(8) | state(1)},
 *   followed for data blocks by {@code segment(4) | offset(8) | crc32c(4)}: the local metadata;</li>
 *   <li>{@code dirty}: same key to {@code version(8) | state(1)} for blocks not yet flushed to the controller,
 *   written in the same batch as the block;</li>
 *   <li>{@code view}: same key to {@code version(8) | holder} (UTF-8, empty for a zero marker): the cached
 *   global metadata;</li>
 *   <li>default: counters and each image's view metaSeq.</li>
 * </ul>
 * A write appends its data to the segment log first, then commits the index entries in
 * one {@link WriteBatch}: an index entry never points at data not yet written, and a
 * read checks the data against the entry's checksum. {@link #sync()} syncs the segments,
 * then the WAL. A {@link SegmentCleaner} moves live blocks out of old segments.
 */
public final class RocksBlockStore implements BlockStore {
    static {
        RocksDB.loadLibrary();
    }

    private static final byte[] NEXT_IMAGE_ID = "next-image-id".getBytes(StandardCharsets.UTF_8);
    private static final byte[] VIEW_SEQ = "view-seq:".getBytes(StandardCharsets.UTF_8);
    private static final byte STATE_DATA = 1;
    private static final byte STATE_ZERO = 2;
    private static final int KEY = 16;
    private static final int META = 9;
    private static final int DATA_META = META + 16;
    private static final long MAX_BATCH_BLOCKS = 16_384;
    private static final int MARK_BATCH = 1024;
    private static final byte[] ZEROS = new byte[BLOCK_SIZE];

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final RocksDB db;
    private final ColumnFamilyHandle images;
    private final ColumnFamilyHandle blocks;
    private final ColumnFamilyHandle dirty;
    private final ColumnFamilyHandle view;
    private final SegmentLog segments;
    /** Shared by reads and writes; the cleaner takes it exclusively to move data. */
    private final ReentrantReadWriteLock cleaning = new ReentrantReadWriteLock();
    private final ColumnFamilyHandle counters;
    private final WriteOptions asyncWrite;
    private final WriteOptions syncWrite;
    private final ReadOptions read;
    private final Object catalogLock = new Object();
    /** The images column family in memory, so catalog reads never touch RocksDB; written through under {@code catalogLock}. */
    private final Map<String, ImageRecord> catalog = new ConcurrentSkipListMap<>();
    private final SegmentCleaner cleaner;
    private final boolean trackDirty;

    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;

    public RocksBlockStore(Path directory, long blockCacheBytes) {
        this(directory, blockCacheBytes, DEFAULT_SEGMENT_BYTES, true);
    }

    /**
     * @param trackDirty whether writes record their blocks as dirty: a site with a
     * controller needs it, a standalone site has nobody to flush to and saves the writes
     */
    public RocksBlockStore(Path directory, long blockCacheBytes, long segmentBytes, boolean trackDirty) {
        requireNonNull(directory, "directory is null");
        this.trackDirty = trackDirty;
        try {
            Files.createDirectories(directory);
            LRUCache cache = track(new LRUCache(blockCacheBytes));
            BloomFilter bloom = track(new BloomFilter(10));
            DBOptions options = track(new DBOptions()
                    .setCreateIfMissing(true)
                    .setCreateMissingColumnFamilies(true)
                    .setMaxBackgroundJobs(2)
                    .setBytesPerSync(1 << 20)
                    .setAllowMmapReads(true)
                    .setManualWalFlush(true));
            ColumnFamilyOptions small = track(new ColumnFamilyOptions()
                    .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(bloom))
                    .setCompressionType(CompressionType.LZ4_COMPRESSION)
                    .setWriteBufferSize(64L << 20));
            List<ColumnFamilyDescriptor> descriptors = List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, small),
                    new ColumnFamilyDescriptor(bytes("images"), small),
                    new ColumnFamilyDescriptor(bytes("blocks"), small),
                    new ColumnFamilyDescriptor(bytes("dirty"), small),
                    new ColumnFamilyDescriptor(bytes("view"), small));
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            db = RocksDB.open(options, directory.resolve("index").toString(), descriptors, handles);
            handles.forEach(this::track);
            counters = handles.get(0);
            images = handles.get(1);
            blocks = handles.get(2);
            dirty = handles.get(3);
            view = handles.get(4);
            segments = track(new SegmentLog(directory.resolve("segments"), segmentBytes));
            loadCatalog();
            asyncWrite = track(new WriteOptions());
            syncWrite = track(new WriteOptions().setSync(true));
            read = track(new ReadOptions());
            cleaner = new SegmentCleaner(db, blocks, segments, cleaning, this::sync, segmentBytes);
        } catch (RocksDBException | java.io.IOException e) {
            closeResources();
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "cannot open block store in " + directory + ": " + e.getMessage(), e);
        }
    }

    @Override
    public ImageInfo createImage(String name, long sizeBytes) {
        checkName(name);
        checkSize(sizeBytes);
        synchronized (catalogLock) {
            if (find(name) != null) {
                throw ImageNames.exists(name);
            }
            long id = nextImageId();
            ImageRecord record = new ImageRecord(new ImageInfo(id, name, sizeBytes, Instant.now()), 0);
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(counters, NEXT_IMAGE_ID, longBytes(id + 1));
                batch.put(images, bytes(name), record.encode());
                db.write(syncWrite, batch);
            } catch (RocksDBException e) {
                throw failure("create image " + name, e);
            }
            catalog.put(name, record);
            return record.info();
        }
    }

    @Override
    public List<ImageInfo> listImages() {
        return catalog.values().stream().map(ImageRecord::info).toList();
    }

    @Override
    public ImageInfo image(String name) {
        ImageRecord record = find(name);
        if (record == null) {
            throw ImageNames.notFound(name);
        }
        return record.info();
    }

    @Override
    public void deleteImage(String name) {
        synchronized (catalogLock) {
            long id = image(name).id();
            try (WriteBatch batch = new WriteBatch()) {
                batch.delete(images, bytes(name));
                batch.delete(counters, viewSeqKey(id));
                for (ColumnFamilyHandle family : List.of(blocks, dirty, view)) {
                    batch.deleteRange(family, key(id, 0), key(id + 1, 0));
                }
                db.write(syncWrite, batch);
            } catch (RocksDBException e) {
                throw failure("delete image " + name, e);
            }
            catalog.remove(name);
        }
    }

    @Override
    public ImageInfo resizeImage(String name, long sizeBytes) {
        checkSize(sizeBytes);
        synchronized (catalogLock) {
            ImageRecord record = find(name);
            if (record == null) {
                throw ImageNames.notFound(name);
            }
            ImageInfo old = record.info();
            ImageInfo resized = new ImageInfo(old.id(), old.name(), sizeBytes, old.created());
            try (WriteBatch batch = new WriteBatch()) {
                if (sizeBytes < old.sizeBytes()) {
                    for (ColumnFamilyHandle family : List.of(blocks, dirty, view)) {
                        batch.deleteRange(family, key(old.id(), resized.blockCount()), key(old.id() + 1, 0));
                    }
                }
                ImageRecord updated = new ImageRecord(resized, record.epoch());
                batch.put(images, bytes(name), updated.encode());
                db.write(syncWrite, batch);
                catalog.put(name, updated);
            } catch (RocksDBException e) {
                throw failure("resize image " + name, e);
            }
            return resized;
        }
    }

    @Override
    public ImageUsage usage(long imageId) {
        long[] counts = new long[2];
        scan(blocks, imageId, (block, value) -> counts[value[8] == STATE_DATA ? 0 : 1]++);
        return new ImageUsage(counts[0], counts[1]);
    }

    @Override
    public long beginSession(long imageId) {
        synchronized (catalogLock) {
            for (ImageRecord record : catalog.values()) {
                if (record.info().id() == imageId) {
                    ImageRecord next = new ImageRecord(record.info(), record.epoch() + 1);
                    try {
                        db.put(images, syncWrite, bytes(record.info().name()), next.encode());
                    } catch (RocksDBException e) {
                        throw failure("begin session of image " + record.info().name(), e);
                    }
                    catalog.put(record.info().name(), next);
                    return next.epoch();
                }
            }
            throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image id " + imageId + " does not exist");
        }
    }

    @Override
    public void read(long imageId, long firstBlock, int count, ByteBuffer destination) {
        cleaning.readLock().lock();
        try {
            if (count == 1) {
                byte[] value = db.get(blocks, read, key(imageId, firstBlock));
                readBlock(value, destination);
                return;
            }
            try (Slice upper = new Slice(key(imageId, firstBlock + count));
                    ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                    RocksIterator iterator = db.newIterator(blocks, options)) {
                // Blocks written together lie together in a segment: read each such run at once.
                List<SegmentLog.Location> run = new ArrayList<>();
                long next = firstBlock;
                for (iterator.seek(key(imageId, firstBlock)); iterator.isValid(); iterator.next()) {
                    long block = ByteBuffer.wrap(iterator.key()).getLong(8);
                    SegmentLog.Location location = location(iterator.value());
                    boolean extendsRun = block == next && location != null && !run.isEmpty() && SegmentLog.follows(run.get(run.size() - 1), location);
                    if (!extendsRun) {
                        readRun(run, destination);
                        fillZeros(destination, (int) (block - next) * BLOCK_SIZE);
                    }
                    if (location == null) {
                        fillZeros(destination, BLOCK_SIZE);
                    } else {
                        run.add(location);
                    }
                    next = block + 1;
                }
                readRun(run, destination);
                fillZeros(destination, (int) (firstBlock + count - next) * BLOCK_SIZE);
            }
        } catch (RocksDBException e) {
            throw failure("read image " + imageId, e);
        } finally {
            cleaning.readLock().unlock();
        }
    }

    private void readBlock(byte[] value, ByteBuffer destination) {
        SegmentLog.Location location = value == null ? null : location(value);
        if (location == null) {
            fillZeros(destination, BLOCK_SIZE);
        } else {
            segments.read(location, destination);
        }
    }

    private void readRun(List<SegmentLog.Location> run, ByteBuffer destination) {
        if (!run.isEmpty()) {
            segments.readRun(run, destination);
            run.clear();
        }
    }

    /** Where a block's data is, or null for an unwritten or zeroed block. */
    static SegmentLog.Location location(byte[] value) {
        if (value[8] != STATE_DATA) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(value, META, DATA_META - META);
        return new SegmentLog.Location(buffer.getInt(), buffer.getLong(), buffer.getInt());
    }

    @Override
    public void write(long imageId, long firstBlock, ByteBuffer source, long version, boolean sync) {
        cleaning.readLock().lock();
        try (WriteBatch batch = new WriteBatch()) {
            List<SegmentLog.Location> locations = segments.append(imageId, firstBlock, version, source);
            byte[] dirtyMeta = meta(version, STATE_DATA);
            for (int i = 0; i < locations.size(); i++) {
                byte[] key = key(imageId, firstBlock + i);
                batch.put(blocks, key, dataMeta(version, locations.get(i)));
                if (trackDirty) {
                    batch.put(dirty, key, dirtyMeta);
                }
            }
            if (sync) {
                segments.sync();
            }
            db.write(sync ? syncWrite : asyncWrite, batch);
        } catch (RocksDBException e) {
            throw failure("write image " + imageId, e);
        } finally {
            cleaning.readLock().unlock();
        }
    }

    static byte[] dataMeta(long version, SegmentLog.Location location) {
        return ByteBuffer.allocate(DATA_META).putLong(version).put(STATE_DATA)
                .putInt(location.segment()).putLong(location.offset()).putInt(location.crc()).array();
    }

    @Override
    public void zero(long imageId, long firstBlock, long count, long version, boolean sync) {
        byte[] meta = meta(version, STATE_ZERO);
        cleaning.readLock().lock();
        try (Slice upper = new Slice(key(imageId, firstBlock + count));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(blocks, options)) {
            iterator.seek(key(imageId, firstBlock));
            while (iterator.isValid()) {
                try (WriteBatch batch = new WriteBatch()) {
                    for (long n = 0; n < MAX_BATCH_BLOCKS && iterator.isValid(); iterator.next(), n++) {
                        if (iterator.value()[8] == STATE_DATA) {
                            batch.put(blocks, iterator.key(), meta);
                            if (trackDirty) {
                                batch.put(dirty, iterator.key(), meta);
                            }
                        }
                    }
                    db.write(asyncWrite, batch);
                }
            }
            if (sync) {
                sync();
            }
        } catch (RocksDBException e) {
            throw failure("zero image " + imageId, e);
        } finally {
            cleaning.readLock().unlock();
        }
    }

    @Override
    public void zeroBlocks(long imageId, long[] blockIndexes, long version, boolean sync) {
        byte[] meta = meta(version, STATE_ZERO);
        cleaning.readLock().lock();
        try (WriteBatch batch = new WriteBatch()) {
            for (long block : blockIndexes) {
                batch.put(blocks, key(imageId, block), meta);
                if (trackDirty) {
                    batch.put(dirty, key(imageId, block), meta);
                }
            }
            db.write(asyncWrite, batch);
            if (sync) {
                sync();
            }
        } catch (RocksDBException e) {
            throw failure("zero blocks of image " + imageId, e);
        } finally {
            cleaning.readLock().unlock();
        }
    }

    @Override
    public List<BlockVersion> dirtyBlocks(long imageId) {
        List<BlockVersion> entries = new ArrayList<>();
        scan(dirty, imageId, (block, value) -> entries.add(blockVersion(block, value)));
        return entries;
    }

    @Override
    public void markFlushed(long imageId, List<BlockVersion> flushed) {
        for (int from = 0; from < flushed.size(); from += MARK_BATCH) {
            markFlushedBatch(imageId, flushed.subList(from, Math.min(flushed.size(), from + MARK_BATCH)));
        }
    }

    /** Exclusive, so no write slips in between the comparison and the delete; in batches, so I/O waits briefly. */
    private void markFlushedBatch(long imageId, List<BlockVersion> flushed) {
        cleaning.writeLock().lock();
        try (WriteBatch batch = new WriteBatch()) {
            for (BlockVersion entry : flushed) {
                byte[] key = key(imageId, entry.block());
                byte[] value = db.get(dirty, read, key);
                if (value != null && blockVersion(entry.block(), value).equals(entry)) {
                    batch.delete(dirty, key);
                }
            }
            db.write(asyncWrite, batch);
        } catch (RocksDBException e) {
            throw failure("mark blocks of image " + imageId + " flushed", e);
        } finally {
            cleaning.writeLock().unlock();
        }
    }

    @Override
    public void forEachBlock(long imageId, Consumer<BlockVersion> visitor) {
        scan(blocks, imageId, (block, value) -> visitor.accept(blockVersion(block, value)));
    }

    @Override
    public long viewSeq(long imageId) {
        try {
            byte[] value = db.get(counters, viewSeqKey(imageId));
            return value == null ? 0 : ByteBuffer.wrap(value).getLong();
        } catch (RocksDBException e) {
            throw failure("read the view of image " + imageId, e);
        }
    }

    @Override
    public void forEachViewEntry(long imageId, Consumer<GlobalBlock> visitor) {
        scan(view, imageId, (block, value) -> {
            String holder = new String(value, 8, value.length - 8, StandardCharsets.UTF_8);
            visitor.accept(new GlobalBlock(block, ByteBuffer.wrap(value).getLong(), holder.isEmpty() ? null : holder));
        });
    }

    @Override
    public void applyView(long imageId, long metaSeq, boolean replace, List<GlobalBlock> entries) {
        try (WriteBatch batch = new WriteBatch()) {
            if (replace) {
                batch.deleteRange(view, key(imageId, 0), key(imageId + 1, 0));
            }
            for (GlobalBlock entry : entries) {
                byte[] holder = entry.zero() ? new byte[0] : bytes(entry.holder());
                batch.put(view, key(imageId, entry.block()), ByteBuffer.allocate(8 + holder.length).putLong(entry.version()).put(holder).array());
            }
            batch.put(counters, viewSeqKey(imageId), longBytes(metaSeq));
            db.write(syncWrite, batch);
        } catch (RocksDBException e) {
            throw failure("update the view of image " + imageId, e);
        }
    }

    private interface EntryVisitor {
        void visit(long block, byte[] value);
    }

    private void scan(ColumnFamilyHandle family, long imageId, EntryVisitor visitor) {
        try (Slice upper = new Slice(key(imageId + 1, 0));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(family, options)) {
            for (iterator.seek(key(imageId, 0)); iterator.isValid(); iterator.next()) {
                visitor.visit(ByteBuffer.wrap(iterator.key()).getLong(8), iterator.value());
            }
        }
    }

    private static BlockVersion blockVersion(long block, byte[] value) {
        return new BlockVersion(block, ByteBuffer.wrap(value).getLong(), value[8] == STATE_DATA ? BlockState.DATA : BlockState.ZERO);
    }

    private static byte[] viewSeqKey(long imageId) {
        return ByteBuffer.allocate(VIEW_SEQ.length + 8).put(VIEW_SEQ).putLong(imageId).array();
    }

    @Override
    public List<BlockRun> allocation(long imageId, long firstBlock, long count) {
        List<BlockRun> runs = new ArrayList<>();
        long end = firstBlock + count;
        try (Slice upper = new Slice(key(imageId, end));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(blocks, options)) {
            long next = firstBlock;
            for (iterator.seek(key(imageId, firstBlock)); iterator.isValid(); iterator.next()) {
                long block = ByteBuffer.wrap(iterator.key()).getLong(8);
                BlockRun.append(runs, next, block - next, BlockState.UNWRITTEN);
                BlockRun.append(runs, block, 1, iterator.value()[8] == STATE_DATA ? BlockState.DATA : BlockState.ZERO);
                next = block + 1;
            }
            BlockRun.append(runs, next, end - next, BlockState.UNWRITTEN);
        }
        return runs;
    }

    @Override
    public void sync() {
        try {
            segments.sync();
            db.flushWal(true);
        } catch (RocksDBException e) {
            throw failure("sync", e);
        }
    }

    /** Bytes in segment files, live and dead, for metrics. */
    public long segmentLogBytes() {
        return segments.totalBytes();
    }

    /** A RocksDB property summed over the column families, for metrics. */
    public long longProperty(String property) {
        long total = 0;
        for (ColumnFamilyHandle handle : List.of(counters, images, blocks, dirty, view)) {
            try {
                total += db.getLongProperty(handle, property);
            } catch (RocksDBException e) {
                throw failure("read property " + property, e);
            }
        }
        return total;
    }

    /** Cleans the oldest sealed segment now, whatever the garbage; false when none is sealed. */
    boolean cleanOldestSegment() {
        return cleaner.cleanOldestSegment();
    }

    @Override
    public void close() {
        cleaner.close();
        try {
            sync();
        } finally {
            db.close();
            closeResources();
        }
    }

    private ImageRecord find(String name) {
        return catalog.get(name);
    }

    private void loadCatalog() {
        try (RocksIterator iterator = db.newIterator(images)) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                String name = new String(iterator.key(), StandardCharsets.UTF_8);
                catalog.put(name, ImageRecord.decode(name, iterator.value()));
            }
        }
    }

    private long nextImageId() {
        try {
            byte[] value = db.get(counters, NEXT_IMAGE_ID);
            return value == null ? 1 : ByteBuffer.wrap(value).getLong();
        } catch (RocksDBException e) {
            throw failure("read image id counter", e);
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
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

    private static void fillZeros(ByteBuffer destination, int length) {
        for (int done = 0; done < length; done += BLOCK_SIZE) {
            destination.put(ZEROS, 0, Math.min(BLOCK_SIZE, length - done));
        }
    }


    static HeliotropeException failure(String action, RocksDBException e) {
        return new HeliotropeException(ErrorCode.STORAGE_FAILURE, "RocksDB failed to " + action + ": " + e.getMessage(), e);
    }

    static byte[] key(long imageId, long block) {
        return ByteBuffer.allocate(KEY).putLong(imageId).putLong(block).array();
    }

    private static byte[] meta(long version, byte state) {
        return ByteBuffer.allocate(META).putLong(version).put(state).array();
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
