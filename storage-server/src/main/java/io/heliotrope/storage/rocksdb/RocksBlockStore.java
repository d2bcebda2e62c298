package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.ImageNames;
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

import static io.heliotrope.storage.ImageNames.checkName;
import static io.heliotrope.storage.ImageNames.checkSize;
import static java.util.Objects.requireNonNull;

/**
 * A {@link BlockStore} in RocksDB. Column families:
 * <ul>
 *   <li>{@code images}: name to {@code id | size | created | epoch};</li>
 *   <li>{@code blocks}: {@code imageId(8) | block(8)} big-endian to {@code version(8) | state(1)}, the local metadata;</li>
 *   <li>{@code data}: the same key to the block's 4096 bytes, kept in blob files (key-value separation), present only for data blocks;</li>
 *   <li>default: counters.</li>
 * </ul>
 * A write puts both keys in one {@link WriteBatch}, so version and data change together.
 * Writes go through the WAL; {@link #sync()} and FUA writes sync it.
 */
public final class RocksBlockStore implements BlockStore {
    static {
        RocksDB.loadLibrary();
    }

    private static final byte[] NEXT_IMAGE_ID = "next-image-id".getBytes(StandardCharsets.UTF_8);
    private static final byte STATE_DATA = 1;
    private static final byte STATE_ZERO = 2;
    private static final int KEY = 16;
    private static final int META = 9;
    private static final long MAX_BATCH_BLOCKS = 16_384;
    private static final byte[] ZEROS = new byte[BLOCK_SIZE];
    /** RocksDB copies keys into its own memory, so one direct key buffer per thread serves every call. */
    private static final ThreadLocal<ByteBuffer> DIRECT_KEY = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(KEY));

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final RocksDB db;
    private final ColumnFamilyHandle images;
    private final ColumnFamilyHandle blocks;
    private final ColumnFamilyHandle data;
    private final ColumnFamilyHandle counters;
    private final WriteOptions asyncWrite;
    private final WriteOptions syncWrite;
    private final ReadOptions read;
    private final Object catalogLock = new Object();

    public RocksBlockStore(Path directory, long blockCacheBytes) {
        requireNonNull(directory, "directory is null");
        try {
            Files.createDirectories(directory);
            LRUCache cache = track(new LRUCache(blockCacheBytes));
            BloomFilter bloom = track(new BloomFilter(10));
            DBOptions options = track(new DBOptions()
                    .setCreateIfMissing(true)
                    .setCreateMissingColumnFamilies(true)
                    .setMaxBackgroundJobs(2)
                    .setBytesPerSync(1 << 20)
                    .setEnablePipelinedWrite(true));
            ColumnFamilyOptions small = track(new ColumnFamilyOptions()
                    .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(bloom))
                    .setCompressionType(CompressionType.LZ4_COMPRESSION));
            ColumnFamilyOptions blobs = track(new ColumnFamilyOptions()
                    .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(bloom))
                    .setCompressionType(CompressionType.NO_COMPRESSION)
                    .setWriteBufferSize(64L << 20)
                    .setEnableBlobFiles(true)
                    .setMinBlobSize(BLOCK_SIZE)
                    .setBlobFileSize(256L << 20)
                    .setBlobCompressionType(CompressionType.NO_COMPRESSION)
                    .setEnableBlobGarbageCollection(true));
            List<ColumnFamilyDescriptor> descriptors = List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, small),
                    new ColumnFamilyDescriptor(bytes("images"), small),
                    new ColumnFamilyDescriptor(bytes("blocks"), small),
                    new ColumnFamilyDescriptor(bytes("data"), blobs));
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            db = RocksDB.open(options, directory.toString(), descriptors, handles);
            handles.forEach(this::track);
            counters = handles.get(0);
            images = handles.get(1);
            blocks = handles.get(2);
            data = handles.get(3);
            asyncWrite = track(new WriteOptions());
            syncWrite = track(new WriteOptions().setSync(true));
            read = track(new ReadOptions());
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
            return record.info();
        }
    }

    @Override
    public List<ImageInfo> listImages() {
        List<ImageInfo> result = new ArrayList<>();
        try (RocksIterator iterator = db.newIterator(images)) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                result.add(ImageRecord.decode(new String(iterator.key(), StandardCharsets.UTF_8), iterator.value()).info());
            }
        }
        return result;
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
                batch.deleteRange(blocks, key(id, 0), key(id + 1, 0));
                batch.deleteRange(data, key(id, 0), key(id + 1, 0));
                db.write(syncWrite, batch);
            } catch (RocksDBException e) {
                throw failure("delete image " + name, e);
            }
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
                    batch.deleteRange(blocks, key(old.id(), resized.blockCount()), key(old.id() + 1, 0));
                    batch.deleteRange(data, key(old.id(), resized.blockCount()), key(old.id() + 1, 0));
                }
                batch.put(images, bytes(name), new ImageRecord(resized, record.epoch()).encode());
                db.write(syncWrite, batch);
            } catch (RocksDBException e) {
                throw failure("resize image " + name, e);
            }
            return resized;
        }
    }

    @Override
    public ImageUsage usage(long imageId) {
        long dataBlocks = 0;
        long zeroBlocks = 0;
        try (Slice upper = new Slice(key(imageId + 1, 0));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(blocks, options)) {
            for (iterator.seek(key(imageId, 0)); iterator.isValid(); iterator.next()) {
                if (iterator.value()[8] == STATE_DATA) {
                    dataBlocks++;
                } else {
                    zeroBlocks++;
                }
            }
        }
        return new ImageUsage(dataBlocks, zeroBlocks);
    }

    @Override
    public long beginSession(long imageId) {
        synchronized (catalogLock) {
            for (ImageRecord record : records()) {
                if (record.info().id() == imageId) {
                    long epoch = record.epoch() + 1;
                    try {
                        db.put(images, syncWrite, bytes(record.info().name()), new ImageRecord(record.info(), epoch).encode());
                    } catch (RocksDBException e) {
                        throw failure("begin session of image " + record.info().name(), e);
                    }
                    return epoch;
                }
            }
            throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image id " + imageId + " does not exist");
        }
    }

    @Override
    public void read(long imageId, long firstBlock, int count, ByteBuffer destination) {
        try {
            if (count == 1 && destination.isDirect()) {
                ByteBuffer key = directKey(imageId, firstBlock);
                ByteBuffer target = destination.slice().limit(BLOCK_SIZE);
                if (db.get(data, read, key, target) == RocksDB.NOT_FOUND) {
                    fillZeros(destination, BLOCK_SIZE);
                } else {
                    destination.position(destination.position() + BLOCK_SIZE);
                }
                return;
            }
            readRange(imageId, firstBlock, count, destination);
        } catch (RocksDBException e) {
            throw failure("read image " + imageId, e);
        }
    }

    private void readRange(long imageId, long firstBlock, int count, ByteBuffer destination) {
        try (Slice upper = new Slice(key(imageId, firstBlock + count));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(data, options)) {
            long next = firstBlock;
            for (iterator.seek(key(imageId, firstBlock)); iterator.isValid(); iterator.next()) {
                long block = ByteBuffer.wrap(iterator.key()).getLong(8);
                fillZeros(destination, (int) (block - next) * BLOCK_SIZE);
                destination.put(iterator.value());
                next = block + 1;
            }
            fillZeros(destination, (int) (firstBlock + count - next) * BLOCK_SIZE);
        }
    }

    @Override
    public void write(long imageId, long firstBlock, ByteBuffer source, long version, boolean sync) {
        int count = source.remaining() / BLOCK_SIZE;
        byte[] meta = meta(version, STATE_DATA);
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < count; i++) {
                byte[] key = key(imageId, firstBlock + i);
                batch.put(blocks, key, meta);
                ByteBuffer block = source.slice().limit(BLOCK_SIZE);
                if (block.isDirect()) {
                    batch.put(data, directKey(imageId, firstBlock + i), block);
                } else {
                    byte[] copy = new byte[BLOCK_SIZE];
                    block.get(copy);
                    batch.put(data, key, copy);
                }
                source.position(source.position() + BLOCK_SIZE);
            }
            db.write(sync ? syncWrite : asyncWrite, batch);
        } catch (RocksDBException e) {
            throw failure("write image " + imageId, e);
        }
    }

    @Override
    public void zero(long imageId, long firstBlock, long count, long version, boolean sync) {
        byte[] meta = meta(version, STATE_ZERO);
        try (Slice upper = new Slice(key(imageId, firstBlock + count));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(blocks, options)) {
            iterator.seek(key(imageId, firstBlock));
            while (iterator.isValid()) {
                try (WriteBatch batch = new WriteBatch()) {
                    for (long n = 0; n < MAX_BATCH_BLOCKS && iterator.isValid(); iterator.next(), n++) {
                        if (iterator.value()[8] == STATE_DATA) {
                            byte[] key = iterator.key();
                            batch.put(blocks, key, meta);
                            batch.delete(data, key);
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
        }
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
                addRun(runs, next, block - next, BlockState.UNWRITTEN);
                addRun(runs, block, 1, iterator.value()[8] == STATE_DATA ? BlockState.DATA : BlockState.ZERO);
                next = block + 1;
            }
            addRun(runs, next, end - next, BlockState.UNWRITTEN);
        }
        return runs;
    }

    private static void addRun(List<BlockRun> runs, long first, long count, BlockState state) {
        if (count == 0) {
            return;
        }
        int last = runs.size() - 1;
        if (last >= 0 && runs.get(last).state() == state) {
            BlockRun previous = runs.get(last);
            runs.set(last, new BlockRun(previous.firstBlock(), previous.count() + count, state));
        } else {
            runs.add(new BlockRun(first, count, state));
        }
    }

    @Override
    public void sync() {
        try {
            db.flushWal(true);
        } catch (RocksDBException e) {
            throw failure("sync", e);
        }
    }

    /** A RocksDB property summed over the column families, for metrics. */
    public long longProperty(String property) {
        long total = 0;
        for (ColumnFamilyHandle handle : List.of(counters, images, blocks, data)) {
            try {
                total += db.getLongProperty(handle, property);
            } catch (RocksDBException e) {
                throw failure("read property " + property, e);
            }
        }
        return total;
    }

    @Override
    public void close() {
        try {
            db.syncWal();
        } catch (RocksDBException e) {
            throw failure("sync on close", e);
        } finally {
            db.close();
            closeResources();
        }
    }

    private ImageRecord find(String name) {
        try {
            byte[] value = db.get(images, bytes(name));
            return value == null ? null : ImageRecord.decode(name, value);
        } catch (RocksDBException e) {
            throw failure("read catalog", e);
        }
    }

    private List<ImageRecord> records() {
        List<ImageRecord> result = new ArrayList<>();
        try (RocksIterator iterator = db.newIterator(images)) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                result.add(ImageRecord.decode(new String(iterator.key(), StandardCharsets.UTF_8), iterator.value()));
            }
        }
        return result;
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

    private static ByteBuffer directKey(long imageId, long block) {
        return DIRECT_KEY.get().clear().putLong(imageId).putLong(block).flip();
    }

    private static HeliotropeException failure(String action, RocksDBException e) {
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
