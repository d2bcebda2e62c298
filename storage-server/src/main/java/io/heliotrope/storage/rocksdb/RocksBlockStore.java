package io.heliotrope.storage.rocksdb;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.ImageNames;
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

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import static io.heliotrope.storage.ImageNames.checkName;
import static io.heliotrope.storage.ImageNames.checkSize;
import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;
import static io.heliotrope.storage.rocksdb.IndexCache.NO_DATA;
import static io.heliotrope.storage.rocksdb.IndexEntries.INLINE;
import static io.heliotrope.storage.rocksdb.IndexEntries.SLOT;
import static io.heliotrope.storage.rocksdb.IndexEntries.STATE;
import static io.heliotrope.storage.rocksdb.IndexEntries.STATE_DATA;
import static io.heliotrope.storage.rocksdb.IndexEntries.STATE_ZERO;
import static io.heliotrope.storage.rocksdb.IndexEntries.block;
import static io.heliotrope.storage.rocksdb.IndexEntries.crc;
import static io.heliotrope.storage.rocksdb.IndexEntries.dataEntry;
import static io.heliotrope.storage.rocksdb.IndexEntries.dataGroupEntry;
import static io.heliotrope.storage.rocksdb.IndexEntries.groupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.isData;
import static io.heliotrope.storage.rocksdb.IndexEntries.isGroupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.isInline;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static io.heliotrope.storage.rocksdb.IndexEntries.ofGroup;
import static io.heliotrope.storage.rocksdb.IndexEntries.version;
import static io.heliotrope.storage.rocksdb.IndexEntries.zeroEntry;
import static io.heliotrope.storage.rocksdb.IndexEntries.zeroGroupEntry;
import static java.util.Objects.requireNonNull;

/**
 * A {@link BlockStore} with its index in RocksDB and block data in {@link BlockFiles}, one
 * file per image with two slots per block. Column families:
 * <ul>
 *   <li>{@code images}: name to {@code id | size | created | epoch};</li>
 *   <li>{@code blocks}: the local metadata, an entry per block or per group of blocks written
 *   together ({@link IndexEntries});</li>
 *   <li>{@code inline}: block key to the data of a block whose entry says its copy is inline;</li>
 *   <li>{@code dirty}: block key to {@code version(8) | state(1)} for blocks not yet flushed to the controller,
 *   written in the same batch as the block;</li>
 *   <li>{@code view}: same key to {@code version(8) | holder} (UTF-8, empty for a zero marker): the cached
 *   global metadata;</li>
 *   <li>default: counters and each image's view metaSeq.</li>
 * </ul>
 * A write puts each block's data into the slot its index entry does not point at, then
 * commits the index entries in one {@link WriteBatch}, one entry for each whole group it
 * covers and one for each other block: an entry never points at data not
 * yet written, and a read checks the data against the entry's checksum. A slot is
 * overwritten only once no index state that a crash could bring back points at it: a
 * block written a second time since the last {@link #sync()} (which syncs the block
 * files, then the WAL) has its data put inline, into the same batch as its entry, which
 * leaves both slots alone (a hot block's rewrites cost no sync: one block rewritten at
 * queue depth 32 on a disk, 2.4K/s syncing first), and the block files are synced before
 * RocksDB flushes a memtable. A write of whole groups over such blocks syncs first
 * instead, as group entries have no inline form. So the block files need no cleaning, and
 * a crash shows each block at a version with its own data. Reads of many blocks find them through an
 * {@link IndexCache} of whole groups, which every change to the index invalidates.
 */
public final class RocksBlockStore implements BlockStore {
    static {
        RocksDB.loadLibrary();
    }

    private static final Logger log = LoggerFactory.getLogger(RocksBlockStore.class);
    private static final byte[] NEXT_IMAGE_ID = "next-image-id".getBytes(StandardCharsets.UTF_8);
    private static final byte[] VIEW_SEQ = "view-seq:".getBytes(StandardCharsets.UTF_8);
    private static final int META = 9;
    /**
     * Blocks written since the last sync, across images, from which on a sync runs in the
     * background: rewrites of blocks written since go inline, so the longer syncs wait, the
     * more of the writes of a wide random workload go inline too (random 4 KiB writes on a
     * disk over 1 GiB: 30K/s syncing every 256K blocks, TODO with this).
     */
    private static final int BACKGROUND_SYNC_BLOCKS = 1 << 14;
    /** Blocks written since the last sync, across images, from which on a write syncs before it returns. */
    private static final int MAX_UNSYNCED_BLOCKS = 1 << 18;
    private static final int MAX_BATCH_GROUPS = 64;
    private static final int MARK_BATCH = 1024;
    /** Scattered groups remembered at most, and how many of them one sync lets a write gather. */
    private static final int MAX_SCATTERED = 4096;
    private static final int GATHER_PER_SYNC = 64;
    private static final long SPIN_NANOS = 50_000;
    private static final long WRITE_BUFFER_BYTES = 2L << 20;
    /**
     * Inline copies are 4 KiB each and a hot block's rewrites replace each other in the
     * memtable: a larger one flushes, and syncs the block files, less often.
     */
    private static final long INLINE_BUFFER_BYTES = 32L << 20;
    /**
     * Free space below which writes of block data are refused ({@link DiskSpace}): room for
     * a new log's preallocation (1.1 x the largest memtable) and the flush of a full inline
     * memtable and of the small ones, with some to spare.
     */
    private static final long INDEX_RESERVE_BYTES = 3 * INLINE_BUFFER_BYTES;
    private static final byte[] ZEROS = new byte[BLOCK_SIZE];
    /** Reads of this many blocks (256 KiB) or more cache the index entries of the groups they touch. */
    private static final int CACHING_READ_BLOCKS = 64;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final RocksDB db;
    private final ColumnFamilyHandle images;
    private final ColumnFamilyHandle blocks;
    private final ColumnFamilyHandle dirty;
    private final ColumnFamilyHandle view;
    private final ColumnFamilyHandle inline;
    private final BlockFiles files;
    private final DiskSpace space;
    private final IndexCache cache = new IndexCache();
    /**
     * Serializes changes to the blocks column family, so each write picks the free slot
     * of the entry it replaces. Reads take no lock: a read that races a second write to
     * its slot fails the checksum and is retried. Queued writes run when it is let go.
     */
    private final CombiningLock<QueuedWrite> writeLock = new CombiningLock<>(this::runWrites, QueuedWrite::complete);
    /** Guarded by {@code writeLock}: the index entries of the writes staged in {@link #runWrites}, cleared after each commit. */
    private final WriteBatch stagedBatch;
    /** Guarded by {@code writeLock}. */
    private final FreeSlots freeSlots = new FreeSlots(this::loadSlots);
    /** Guarded by {@code writeLock}. */
    private final GroupsWithoutBlockEntries withoutBlockEntries = new GroupsWithoutBlockEntries();
    /** Guarded by {@code writeLock}: whole groups a write left with blocks in both slots, see {@link #gatherScattered()}. */
    private final Set<GroupRef> scattered = new LinkedHashSet<>();
    /** Guarded by {@code writeLock}: a group's moved blocks on their way, made on first use. */
    private ByteBuffer gatherBuffer;
    private long syncs;
    /** Guarded by {@code writeLock}: whether a background sync is asked for and not done. */
    private boolean backgroundSync;
    /** Runs background syncs; one thread, as one sync at a time does all there is. */
    private final ExecutorService syncer = BoundedExecutors.fixed("store-sync", 1, 1);
    private final ColumnFamilyHandle counters;
    private final WriteOptions asyncWrite;
    private final WriteOptions syncWrite;
    private final ReadOptions read;
    private final Object catalogLock = new Object();
    /** The images column family in memory, so catalog reads never touch RocksDB; written through under {@code catalogLock}. */
    private final Map<String, ImageRecord> catalog = new ConcurrentSkipListMap<>();
    private final boolean trackDirty;

    public RocksBlockStore(Path directory, long blockCacheBytes) {
        this(directory, blockCacheBytes, true);
    }

    /**
     * @param trackDirty whether writes record their blocks as dirty: a site with a
     * controller needs it, a standalone site has nobody to flush to and saves the writes
     */
    public RocksBlockStore(Path directory, long blockCacheBytes, boolean trackDirty) {
        requireNonNull(directory, "directory is null");
        this.trackDirty = trackDirty;
        if (Files.isDirectory(directory.resolve("segments"))) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "data directory " + directory
                    + " holds block data in segment files, written by an earlier Heliotrope build that this one cannot read;"
                    + " export the images with that build, or start with another --data-dir");
        }
        try {
            Files.createDirectories(directory);
            space = new DiskSpace(directory, INDEX_RESERVE_BYTES);
            files = track(new BlockFiles(directory.resolve("blocks"), this::blockCount));
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
                    .setListeners(List.of(track(new SyncBlockFilesOnFlush()))));
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
            db = space.open(options, directory.resolve("index"), descriptors, handles);
            handles.forEach(this::track);
            counters = handles.get(0);
            images = handles.get(1);
            blocks = handles.get(2);
            dirty = handles.get(3);
            view = handles.get(4);
            inline = handles.get(5);
            loadCatalog();
            asyncWrite = track(new WriteOptions());
            syncWrite = track(new WriteOptions().setSync(true));
            read = track(new ReadOptions());
            stagedBatch = track(new WriteBatch());
        } catch (RocksDBException | java.io.IOException e) {
            closeResources();
            throw StorageErrors.failure("cannot open block store in " + directory, e);
        }
    }

    /**
     * RocksDB syncs the SST files a memtable flush writes; the block files go first, so no
     * synced index entry points at data that a power loss could take back.
     */
    private final class SyncBlockFilesOnFlush extends AbstractEventListener {
        SyncBlockFilesOnFlush() {
            super(EnabledEventCallback.ON_FLUSH_BEGIN);
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
                writeDurably(batch);
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
                for (ColumnFamilyHandle family : List.of(blocks, dirty, view, inline)) {
                    batch.deleteRange(family, key(id, 0), key(id + 1, 0));
                }
                writeDurably(batch);
            } catch (RocksDBException e) {
                throw failure("delete image " + name, e);
            }
            cache.changedAll();
            catalog.remove(name);
            forget(id);
            files.delete(id);
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
            boolean shrink = sizeBytes < old.sizeBytes();
            writeLock.lock();
            try (WriteBatch batch = new WriteBatch()) {
                if (shrink) {
                    for (ColumnFamilyHandle family : List.of(blocks, dirty, view, inline)) {
                        batch.deleteRange(family, key(old.id(), resized.blockCount()), key(old.id() + 1, 0));
                    }
                    splitCutGroup(batch, old.id(), resized.blockCount());
                }
                ImageRecord updated = new ImageRecord(resized, record.epoch());
                batch.put(images, bytes(name), updated.encode());
                writeDurably(batch);
                catalog.put(name, updated);
                if (shrink) {
                    cache.changedAll();
                    forget(old.id());
                }
                files.resize(old.id(), resized.blockCount());
            } catch (RocksDBException e) {
                throw failure("resize image " + name, e);
            } finally {
                writeLock.unlock();
            }
            return resized;
        }
    }

    /** Replaces the entry of a group that the new end cuts by entries for its blocks before the end. */
    private void splitCutGroup(WriteBatch batch, long imageId, long blockCount) throws RocksDBException {
        long groupFirst = blockCount / GROUP * GROUP;
        if (groupFirst == blockCount) {
            return;
        }
        forEachGroup(imageId, groupFirst, blockCount, 1, (first, groupEntry, own) -> {
            if (groupEntry != null) {
                for (int i = 0; i < blockCount - first; i++) {
                    if (own[i] == null) {
                        batch.put(blocks, key(imageId, first + i), ofGroup(groupEntry, i));
                    }
                }
                batch.delete(blocks, groupKey(imageId, first / GROUP));
            }
        });
    }

    private long blockCount(long imageId) {
        return record(imageId).info().blockCount();
    }

    private ImageRecord record(long imageId) {
        for (ImageRecord record : catalog.values()) {
            if (record.info().id() == imageId) {
                return record;
            }
        }
        throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image id " + imageId + " does not exist");
    }

    private void forget(long imageId) {
        writeLock.lock();
        try {
            freeSlots.forget(imageId);
            withoutBlockEntries.forget(imageId);
            scattered.removeIf(ref -> ref.imageId() == imageId);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public ImageUsage usage(long imageId) {
        long[] counts = new long[2];
        forEachEntry(imageId, 0, -1, (block, entry) -> counts[isData(entry) ? 0 : 1]++);
        return new ImageUsage(counts[0], counts[1]);
    }

    @Override
    public long beginSession(long imageId) {
        synchronized (catalogLock) {
            ImageRecord record = record(imageId);
            ImageRecord next = new ImageRecord(record.info(), record.epoch() + 1);
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(images, bytes(record.info().name()), next.encode());
                writeDurably(batch);
            } catch (RocksDBException e) {
                throw failure("begin session of image " + record.info().name(), e);
            }
            catalog.put(record.info().name(), next);
            return next.epoch();
        }
    }

    @Override
    public void read(long imageId, long firstBlock, int count, ByteBuffer destination) {
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
     * Reads one block again after its data failed the checksum: a write may have moved the
     * block on and a second one reused its slot, or replaced or dropped its inline copy,
     * during the read. Fails when the block's entry still gives the same slot and checksum,
     * so the data is damaged.
     */
    private void rereadBlock(long imageId, long block, int slot, int crc, ByteBuffer destination) {
        for (int attempt = 0; attempt < 8; attempt++) {
            byte[] entry = entry(imageId, block);
            if (entry == null || !isData(entry)) {
                destination.put(0, ZEROS);
                return;
            }
            if (entry[SLOT] == slot && crc(entry) == crc) {
                break;
            }
            slot = entry[SLOT];
            crc = crc(entry);
            if (readCopy(imageId, block, slot, crc, destination)) {
                return;
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
                data = db.get(inline, read, key(imageId, block));
            } catch (RocksDBException e) {
                throw failure("read image " + imageId, e);
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
                forEachEntry(imageId, from, from + length, (block, entry) -> locate(entry, slots, crcs, (int) (block - firstBlock)));
            }
        }
    }

    /** Reads a group's entries from the index into the cache. */
    private IndexCache.Group loadGroup(long imageId, long group) {
        long stamp = cache.stamp(imageId, group);
        byte[] slots = new byte[GROUP];
        int[] crcs = new int[GROUP];
        Arrays.fill(slots, NO_DATA);
        forEachEntry(imageId, group * GROUP, (group + 1) * GROUP, (block, entry) -> locate(entry, slots, crcs, (int) (block % GROUP)));
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

    /** The blocks' entries of a range, null where a block has none. */
    private byte[][] entries(long imageId, long firstBlock, int count) {
        byte[][] entries = new byte[count][];
        forEachEntry(imageId, firstBlock, firstBlock + count, (block, entry) -> entries[(int) (block - firstBlock)] = entry);
        return entries;
    }

    private void loadSlots(long imageId, long firstBlock, long count, FreeSlots.SlotVisitor found) {
        forEachEntry(imageId, firstBlock, firstBlock + count, (block, entry) -> found.visit(block, entry[SLOT], isData(entry)));
    }

    /**
     * A block's entry: its own, else the one its group's entry gives it. Looked up in that
     * order, a block entry that a group write deletes is seen or the group entry is.
     */
    private byte[] entry(long imageId, long block) {
        try {
            byte[] own = db.get(blocks, read, key(imageId, block));
            if (own != null) {
                return own;
            }
            byte[] group = db.get(blocks, read, groupKey(imageId, block / GROUP));
            return group == null ? null : ofGroup(group, (int) (block % GROUP));
        } catch (RocksDBException e) {
            throw failure("read image " + imageId, e);
        }
    }

    @Override
    public void write(long imageId, long firstBlock, ByteBuffer source, long version, boolean sync) {
        QueuedWrite write = new QueuedWrite(imageId, firstBlock, source, version, sync);
        List<QueuedWrite> ran = new ArrayList<>();
        lockForWrite();
        try {
            runWrites(new ArrayDeque<>(List.of(write)), ran);
        } finally {
            writeLock.unlock(ran);
        }
        if (write.failure != null) {
            throw write.failure;
        }
    }

    @Override
    public CompletableFuture<Void> queueWrite(long imageId, long firstBlock, ByteBuffer source, long version, boolean sync) {
        QueuedWrite write = new QueuedWrite(imageId, firstBlock, source, version, sync);
        writeLock.queue(write);
        return write.done;
    }

    @Override
    public void runQueuedWrites() {
        writeLock.runQueued();
    }

    /** A write on its way through {@link #runWrites}; its blocks' slots and checksums once they are placed. */
    private static final class QueuedWrite {
        final long imageId;
        final long firstBlock;
        final ByteBuffer source;
        /** Where the write's data starts in {@code source}. */
        final int start;
        final long version;
        final boolean sync;
        final int count;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        int[] slots;
        int[] crcs;
        RuntimeException failure;

        QueuedWrite(long imageId, long firstBlock, ByteBuffer source, long version, boolean sync) {
            this.imageId = imageId;
            this.firstBlock = firstBlock;
            this.source = source;
            this.start = source.position();
            this.version = version;
            this.sync = sync;
            this.count = source.remaining() / BLOCK_SIZE;
        }

        void complete() {
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        }

        boolean overlaps(QueuedWrite other) {
            return imageId == other.imageId && firstBlock < other.firstBlock + other.count && other.firstBlock < firstBlock + count;
        }

        /** Whether the write covers {@code block} of its image. */
        boolean covers(long block) {
            return firstBlock <= block && block < firstBlock + count;
        }

        /** Whether the write covers a whole group, so it has a group entry. */
        boolean coversGroup() {
            return groupsTo() > groupsFrom();
        }

        /** The first block of the first whole group the write covers; blocks before it get entries of their own. */
        long groupsFrom() {
            return (firstBlock + GROUP - 1) / GROUP * GROUP;
        }

        /** The end of the last whole group the write covers, at least {@link #groupsFrom()}. */
        long groupsTo() {
            return Math.max(groupsFrom(), (firstBlock + count) / GROUP * GROUP);
        }

        /** Block {@code i}'s data. */
        byte[] data(int i) {
            byte[] data = new byte[BLOCK_SIZE];
            source.get(start + i * BLOCK_SIZE, data);
            return data;
        }
    }

    /**
     * Runs the writes in {@code writes}, adding each to {@code ran} with its failure, if any.
     * Their index entries go to RocksDB in as few batches as can be. Blocks written since the
     * last sync, or by a write staged in the batch, go inline; a write that covers a whole
     * group, or touches a block of a staged one that does, has the batch committed first,
     * and if it rewrites blocks written since the sync, the store syncs too (see the class
     * comment): group entries have no inline form.
     */
    private void runWrites(Queue<QueuedWrite> writes, List<QueuedWrite> ran) {
        int first = ran.size();
        List<QueuedWrite> staged = new ArrayList<>();
        boolean synced = false;
        boolean sync = false;
        for (QueuedWrite write; (write = writes.poll()) != null; ) {
            ran.add(write);
            try {
                space.admit((long) write.count * BLOCK_SIZE);
                List<QueuedWrite> overlapped = overlapped(staged, write);
                if (!overlapped.isEmpty() && (write.coversGroup() || overlapped.stream().anyMatch(QueuedWrite::coversGroup))) {
                    commit(staged);
                    overlapped = List.of();
                }
                boolean rewrites = !overlapped.isEmpty() || writtenSinceSync(write.imageId, write.firstBlock, write.count);
                if (rewrites && write.coversGroup()) {
                    commit(staged);
                    syncLocked();
                    synced = true;
                    rewrites = false;
                }
                place(write, rewrites, overlapped);
            } catch (RuntimeException e) {
                write.failure = e;
                continue;
            }
            staged.add(write);
            try {
                index(write);
            } catch (RocksDBException | RuntimeException e) {
                drop(staged, e instanceof RocksDBException r ? failure("write image " + write.imageId, r) : (RuntimeException) e);
                continue;
            }
            sync |= write.sync;
        }
        try {
            commit(staged);
            if (sync || freeSlots.unsyncedBlocks() > MAX_UNSYNCED_BLOCKS) {
                syncLocked();
                synced = true;
            } else if (freeSlots.unsyncedBlocks() > BACKGROUND_SYNC_BLOCKS && !backgroundSync) {
                requestBackgroundSync();
            }
        } catch (RuntimeException e) {
            // The entries are committed, but a write that asked for a sync, or whose blocks had to be synced, did not get one.
            ran.subList(first, ran.size()).forEach(write -> fail(write, e));
        }
        if (synced) {
            gatherScattered();
        }
    }

    /** The staged writes that touch a block of {@code write}. */
    private static List<QueuedWrite> overlapped(List<QueuedWrite> staged, QueuedWrite write) {
        List<QueuedWrite> overlapped = List.of();
        for (QueuedWrite other : staged) {
            if (other.overlaps(write)) {
                if (overlapped.isEmpty()) {
                    overlapped = new ArrayList<>();
                }
                overlapped.add(other);
            }
        }
        return overlapped;
    }

    /** Drops the staged writes and their batch, failing them. */
    private void drop(List<QueuedWrite> staged, RuntimeException failure) {
        staged.forEach(write -> fail(write, failure));
        staged.clear();
        stagedBatch.clear();
    }

    private static void fail(QueuedWrite write, RuntimeException failure) {
        if (write.failure == null) {
            write.failure = failure;
        }
    }

    /**
     * Puts the write's blocks into free slots, each one the slot its current entry does not
     * point at; with {@code rewrites}, the blocks written since the last sync, or by the
     * {@code overlapped} writes staged before it, go inline. Those blocks' entries then come
     * twice in one batch, and the later one wins: the staged writes' slots, which the batch's
     * commit marks written, are taken by no other copy.
     */
    private void place(QueuedWrite write, boolean rewrites, List<QueuedWrite> overlapped) {
        int start = write.start;
        int count = write.count;
        int[] slots = new int[count];
        int[] crcs = new int[count];
        boolean[] heldData = new boolean[count];
        for (int i = 0; i < count; i++) {
            long block = write.firstBlock + i;
            boolean rewrite = rewrites && (freeSlots.unsynced(write.imageId, block) || overlapped.stream().anyMatch(other -> other.covers(block)));
            slots[i] = rewrite ? INLINE : freeSlots.next(write.imageId, block);
            heldData[i] = freeSlots.nextHeldData(write.imageId, block);
            crcs[i] = checksum(write.source.slice(start + i * BLOCK_SIZE, BLOCK_SIZE));
        }
        writeRuns(write.imageId, write.firstBlock, write.source.slice(start, count * BLOCK_SIZE), slots, heldData, 0, count);
        write.source.position(start + count * BLOCK_SIZE);
        write.slots = slots;
        write.crcs = crcs;
    }

    /** Adds the write's index entries to the batch: one for each whole group it covers, one for each other block. */
    private void index(QueuedWrite write) throws RocksDBException {
        long imageId = write.imageId;
        long groupsFrom = write.groupsFrom();
        long groupsTo = write.groupsTo();
        byte[] dirtyMeta = meta(write.version, STATE_DATA);
        for (int i = 0; i < write.count; i++) {
            long block = write.firstBlock + i;
            byte[] key = key(imageId, block);
            if (write.slots[i] == INLINE) {
                withoutBlockEntries.remove(imageId, block / GROUP);
                stagedBatch.put(inline, key, write.data(i));
                stagedBatch.put(blocks, key, dataEntry(write.version, INLINE, write.crcs[i]));
            } else if (block < groupsFrom || block >= groupsTo) {
                withoutBlockEntries.remove(imageId, block / GROUP);
                stagedBatch.put(blocks, key, dataEntry(write.version, write.slots[i], write.crcs[i]));
                if (freeSlots.inline(imageId, block)) {
                    stagedBatch.delete(inline, key);
                }
            } else if (block % GROUP == 0) {
                deleteBlockEntries(stagedBatch, imageId, block / GROUP);
                stagedBatch.put(blocks, groupKey(imageId, block / GROUP), dataGroupEntry(write.version, write.slots, write.crcs, i));
                if (scattered.size() < MAX_SCATTERED && inBothSlots(write.slots, i)) {
                    scattered.add(new GroupRef(imageId, block / GROUP));
                }
            }
            if (trackDirty) {
                stagedBatch.put(dirty, key, dirtyMeta);
            }
        }
    }

    /** Commits the batch of the staged writes, then records where their blocks are now. */
    private void commit(List<QueuedWrite> staged) {
        if (staged.isEmpty()) {
            return;
        }
        try {
            db.write(asyncWrite, stagedBatch);
        } catch (RocksDBException e) {
            drop(staged, failure("write image " + staged.get(0).imageId, e));
            return;
        }
        stagedBatch.clear();
        for (QueuedWrite write : staged) {
            cache.changed(write.imageId, write.firstBlock, write.count);
            for (long group = write.groupsFrom() / GROUP; group < write.groupsTo() / GROUP; group++) {
                withoutBlockEntries.add(write.imageId, group);
            }
            for (int i = 0; i < write.count; i++) {
                if (write.slots[i] == INLINE) {
                    freeSlots.wroteInline(write.imageId, write.firstBlock + i);
                } else {
                    freeSlots.wrote(write.imageId, write.firstBlock + i, write.slots[i]);
                }
            }
        }
        staged.clear();
    }

    /**
     * Writes blocks {@code from} to {@code to} of {@code source} (block {@code i} at
     * {@code i * BLOCK_SIZE}) into their {@code slots}, in runs of blocks that lie together in
     * the file and whose slots all held data before or none did; inline blocks stay out.
     */
    private void writeRuns(long imageId, long firstBlock, ByteBuffer source, int[] slots, boolean[] heldData, int from, int to) {
        for (int end; from < to; from = end) {
            end = from + 1;
            if (slots[from] == INLINE) {
                continue;
            }
            long offset = BlockFiles.offset(firstBlock + from, slots[from]);
            while (end < to && slots[end] != INLINE && heldData[end] == heldData[from]
                    && BlockFiles.offset(firstBlock + end, slots[end]) == offset + (long) (end - from) * BLOCK_SIZE) {
                end++;
            }
            files.write(imageId, offset, source.slice(from * BLOCK_SIZE, (end - from) * BLOCK_SIZE), heldData[from]);
        }
    }

    /** Whether the group whose slots start at {@code from} has blocks in both. */
    private static boolean inBothSlots(int[] slots, int from) {
        for (int i = from + 1; i < from + GROUP; i++) {
            if (slots[i] != slots[from]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Moves the blocks of groups that whole-group writes left in both slots into the slot
     * most of each group's blocks are in, so the group's next writes land in one run of the
     * file again. Random writes scatter a group's blocks over both slots, and every later
     * write of the group flips each block, so without this the scatter stays for good
     * (1 MiB writes over NBD on tmpfs: 1.3–1.5 GB/s scattered, 2.2–2.6 GB/s in one run).
     *
     * <p>Runs after a write that synced, and moves only groups with no block written since:
     * their blocks' other slots are free. A moved block counts as written, so its old slot,
     * where the synced index still points, is not reused before the next sync. Groups whose
     * blocks no longer all hold the data of one write are dropped; they wait for their next
     * whole-group write. At most {@value #GATHER_PER_SYNC} groups (1 MiB each) at a time, so
     * writes wait briefly. A group that fails to move (a full disk, say) is dropped and the
     * rest wait for the next sync: the write that got here succeeded, and so it returns.
     */
    private void gatherScattered() {
        Iterator<GroupRef> pending = scattered.iterator();
        for (int tried = 0; tried < GATHER_PER_SYNC && pending.hasNext(); tried++) {
            GroupRef ref = pending.next();
            try {
                if (gather(ref.imageId(), ref.group() * GROUP)) {
                    pending.remove();
                }
            } catch (RocksDBException | RuntimeException e) {
                pending.remove();
                log.warn("could not gather group {} of image {} into one slot; its blocks stay where they are: {}", ref.group(), ref.imageId(),
                        HeliotropeException.rootMessage(e));
                return;
            }
        }
    }

    /** Gathers one group; false if it has to wait for a sync first. */
    private boolean gather(long imageId, long first) throws RocksDBException {
        if (writtenSinceSync(imageId, first, GROUP)) {
            return false;
        }
        byte[][] entries = entries(imageId, first, GROUP);
        int[] slots = new int[GROUP];
        int[] crcs = new int[GROUP];
        int inSlotOne = 0;
        for (int i = 0; i < GROUP; i++) {
            if (entries[i] == null || !isData(entries[i]) || isInline(entries[i]) || version(entries[i]) != version(entries[0])) {
                return true;
            }
            slots[i] = entries[i][SLOT];
            crcs[i] = crc(entries[i]);
            inSlotOne += slots[i];
        }
        int target = inSlotOne * 2 > GROUP ? 1 : 0;
        if (gatherBuffer == null) {
            gatherBuffer = ByteBuffer.allocateDirect(GROUP * BLOCK_SIZE);
        }
        int[] targets = new int[GROUP];
        Arrays.fill(targets, target);
        boolean[] heldData = new boolean[GROUP];
        for (int from = 0, to; from < GROUP; from = to) {
            to = from + 1;
            if (slots[from] == target) {
                continue;
            }
            while (to < GROUP && slots[to] != target) {
                to++;
            }
            ByteBuffer moved = gatherBuffer.slice(from * BLOCK_SIZE, (to - from) * BLOCK_SIZE);
            files.read(imageId, BlockFiles.offset(first + from, slots[from]), moved);
            for (int i = from; i < to; i++) {
                heldData[i] = freeSlots.nextHeldData(imageId, first + i);
            }
            writeRuns(imageId, first, gatherBuffer, targets, heldData, from, to);
        }
        try (WriteBatch batch = new WriteBatch()) {
            deleteBlockEntries(batch, imageId, first / GROUP);
            batch.put(blocks, groupKey(imageId, first / GROUP), dataGroupEntry(version(entries[0]), targets, crcs, 0));
            db.write(asyncWrite, batch);
        }
        cache.changed(imageId, first, GROUP);
        withoutBlockEntries.add(imageId, first / GROUP);
        for (int i = 0; i < GROUP; i++) {
            if (slots[i] != target) {
                freeSlots.wrote(imageId, first + i, target);
            }
        }
        return true;
    }

    /**
     * Takes the write lock, spinning for up to {@value #SPIN_NANOS} ns before waiting: a write
     * holds it for a few microseconds, and a thread that parks costs a wake-up from another
     * CPU, tens of microseconds on a VM (random 4 KiB writes on two connections: 101K/s
     * parking at once, 120K/s spinning first).
     */
    private void lockForWrite() {
        if (writeLock.tryLock()) {
            return;
        }
        long deadline = System.nanoTime() + SPIN_NANOS;
        while (System.nanoTime() < deadline) {
            Thread.onSpinWait();
            if (writeLock.tryLock()) {
                return;
            }
        }
        writeLock.lock();
    }

    /**
     * Deletes the entries of a group's blocks, which its new group entry replaces; nothing to
     * look for in a group known to have none.
     */
    private void deleteBlockEntries(WriteBatch batch, long imageId, long group) throws RocksDBException {
        if (withoutBlockEntries.contains(imageId, group)) {
            return;
        }
        forEachGroup(imageId, group * GROUP, (group + 1) * GROUP, Integer.MAX_VALUE, (first, groupEntry, own) -> {
            for (int i = 0; i < GROUP; i++) {
                if (own[i] != null) {
                    batch.delete(blocks, key(imageId, first + i));
                    if (isInline(own[i])) {
                        batch.delete(inline, key(imageId, first + i));
                    }
                }
            }
        });
    }

    private boolean writtenSinceSync(long imageId, long firstBlock, int count) {
        for (long block = firstBlock; block < firstBlock + count; block++) {
            if (freeSlots.unsynced(imageId, block)) {
                return true;
            }
        }
        return false;
    }

    private static int checksum(ByteBuffer data) {
        CRC32C crc = new CRC32C();
        crc.update(data.duplicate());
        return (int) crc.getValue();
    }

    /** Zero markers for the range's data blocks, some groups at a time under the write lock, so writes wait briefly. */
    @Override
    public void zero(long imageId, long firstBlock, long count, long version, boolean sync) {
        space.admit(0);
        long end = firstBlock + count;
        for (long next = firstBlock; next >= 0; ) {
            lockForWrite();
            try (WriteBatch batch = new WriteBatch()) {
                long from = next;
                next = forEachGroup(imageId, from, end, MAX_BATCH_GROUPS,
                        (groupFirst, groupEntry, own) -> zeroGroup(batch, imageId, groupFirst, groupEntry, own, firstBlock, end, version));
                db.write(asyncWrite, batch);
                cache.changed(imageId, from, (next < 0 ? end : next) - from);
            } catch (RocksDBException e) {
                throw failure("zero image " + imageId, e);
            } finally {
                writeLock.unlock();
            }
        }
        if (sync) {
            sync();
        }
    }

    /**
     * Zero markers for the data blocks of one group in {@code [first, end)}: one group entry
     * when the range covers a group written whole, in place of its blocks' data entries.
     */
    private void zeroGroup(WriteBatch batch, long imageId, long groupFirst, byte[] groupEntry, byte[][] own, long first, long end, long version)
            throws RocksDBException {
        boolean whole = first <= groupFirst && groupFirst + GROUP <= end && groupEntry != null && isData(groupEntry);
        byte[] dirtyMeta = meta(version, STATE_ZERO);
        int[] slots = new int[GROUP];
        for (int i = 0; i < GROUP; i++) {
            long block = groupFirst + i;
            byte[] entry = resolve(own[i], groupEntry, i);
            if (entry == null || block < first || block >= end) {
                continue;
            }
            slots[i] = entry[SLOT];
            if (!isData(entry)) {
                continue;
            }
            byte[] key = key(imageId, block);
            if (isInline(entry)) {
                batch.delete(inline, key);
            }
            if (!whole) {
                withoutBlockEntries.remove(imageId, groupFirst / GROUP);
                batch.put(blocks, key, zeroEntry(version, entry[SLOT]));
            } else if (own[i] != null) {
                batch.delete(blocks, key);
            }
            if (trackDirty) {
                batch.put(dirty, key, dirtyMeta);
            }
        }
        if (whole) {
            batch.put(blocks, groupKey(imageId, groupFirst / GROUP), zeroGroupEntry(version, slots));
        }
    }

    @Override
    public void zeroBlocks(long imageId, long[] blockIndexes, long version, boolean sync) {
        space.admit(0);
        byte[] meta = meta(version, STATE_ZERO);
        lockForWrite();
        try (WriteBatch batch = new WriteBatch()) {
            for (long block : blockIndexes) {
                withoutBlockEntries.remove(imageId, block / GROUP);
                batch.put(blocks, key(imageId, block), zeroEntry(version, 1 - freeSlots.next(imageId, block)));
                if (freeSlots.inline(imageId, block)) {
                    batch.delete(inline, key(imageId, block));
                }
                if (trackDirty) {
                    batch.put(dirty, key(imageId, block), meta);
                }
            }
            db.write(asyncWrite, batch);
            for (long block : blockIndexes) {
                cache.changed(imageId, block, 1);
            }
            if (sync) {
                syncLocked();
            }
        } catch (RocksDBException e) {
            throw failure("zero blocks of image " + imageId, e);
        } finally {
            writeLock.unlock();
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
        writeLock.lock();
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
            writeLock.unlock();
        }
    }

    @Override
    public void forEachBlock(long imageId, Consumer<BlockVersion> visitor) {
        forEachEntry(imageId, 0, -1, (block, entry) -> visitor.accept(blockVersion(block, entry)));
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
            writeDurably(batch);
        } catch (RocksDBException e) {
            throw failure("update the view of image " + imageId, e);
        }
    }

    private interface EntryVisitor {
        void visit(long block, byte[] value);
    }

    private interface GroupVisitor {
        /** {@code own[i]} is the entry of block {@code groupFirst + i}, if it has one; the array is reused. */
        void visit(long groupFirst, byte[] groupEntry, byte[][] own) throws RocksDBException;
    }

    /** Visits the entries of an image in a family keyed by block, which has no group entries. */
    private void scan(ColumnFamilyHandle family, long imageId, EntryVisitor visitor) {
        try (Slice upper = new Slice(key(imageId + 1, 0));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(family, options)) {
            for (iterator.seek(key(imageId, 0)); iterator.isValid(); iterator.next()) {
                visitor.visit(block(iterator.key()), iterator.value());
            }
        }
    }

    /**
     * Visits, in block order, each block of {@code [firstBlock, end)} that has an entry, its
     * own or one its group's entry gives it; an end of -1 means to the image's last block.
     */
    private void forEachEntry(long imageId, long firstBlock, long end, EntryVisitor visitor) {
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
            throw failure("read the index of image " + imageId, e);
        }
    }

    /** The entry of a group's {@code index}-th block: its own if it has one, else what the group's entry gives it, or null. */
    private static byte[] resolve(byte[] own, byte[] groupEntry, int index) {
        return own != null ? own : groupEntry != null ? ofGroup(groupEntry, index) : null;
    }

    /**
     * Visits, in order, up to {@code maxGroups} groups that have entries for blocks in
     * {@code [firstBlock, end)} (-1: to the image's end), with their group entry and the
     * entries of their blocks in that range. Returns the first block of the next group with
     * entries, or -1 when there is none.
     */
    private long forEachGroup(long imageId, long firstBlock, long end, int maxGroups, GroupVisitor visitor) throws RocksDBException {
        byte[][] own = new byte[GROUP][];
        try (Slice upper = new Slice(end < 0 ? key(imageId + 1, 0) : key(imageId, end));
                ReadOptions options = new ReadOptions().setIterateUpperBound(upper);
                RocksIterator iterator = db.newIterator(blocks, options)) {
            long current = -1;
            byte[] groupEntry = null;
            if (firstBlock % GROUP != 0) {
                // The entry of the first block's group sorts before the first block: looked up after the
                // iterator was made, so a block whose own entry a group write deleted since is seen in either.
                current = firstBlock / GROUP * GROUP;
                groupEntry = db.get(blocks, read, groupKey(imageId, firstBlock / GROUP));
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

    private static BlockVersion blockVersion(long block, byte[] value) {
        return new BlockVersion(block, version(value), value[STATE] == STATE_DATA ? BlockState.DATA : BlockState.ZERO);
    }

    /** A whole group of one image. */
    private record GroupRef(long imageId, long group) {}

    private static byte[] viewSeqKey(long imageId) {
        return ByteBuffer.allocate(VIEW_SEQ.length + 8).put(VIEW_SEQ).putLong(imageId).array();
    }

    @Override
    public List<BlockRun> allocation(long imageId, long firstBlock, long count) {
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

    @Override
    public void sync() {
        List<QueuedWrite> ran = new ArrayList<>();
        writeLock.lock();
        try {
            writeLock.runQueuedLocked(ran);
            syncLocked();
        } finally {
            writeLock.unlock(ran);
        }
    }

    /**
     * Syncs the block files without the write lock, which writes back most of their dirty
     * pages while writes go on, then syncs under it as {@link #sync()} does, which leaves
     * only what was written meanwhile to write back.
     */
    private void requestBackgroundSync() {
        try {
            syncer.execute(this::syncInBackground);
            backgroundSync = true;
        } catch (RejectedExecutionException e) {
            // Closing: the store syncs as it closes.
        }
    }

    private void syncInBackground() {
        List<QueuedWrite> ran = new ArrayList<>();
        try {
            files.sync();
            writeLock.lock();
            try {
                backgroundSync = false;
                writeLock.runQueuedLocked(ran);
                syncLocked();
                gatherScattered();
            } finally {
                writeLock.unlock(ran);
            }
        } catch (RuntimeException e) {
            log.warn("background sync failed; the next write that needs a sync tries again: {}", HeliotropeException.rootMessage(e));
        }
    }

    /**
     * Commits a batch and syncs the WAL, which makes every index entry written before it
     * durable too: so the block files are synced first, under the write lock, so that no
     * block write slips in between.
     */
    private void writeDurably(WriteBatch batch) throws RocksDBException {
        space.admitIndexChange();
        writeLock.lock();
        try {
            files.sync();
            db.write(syncWrite, batch);
        } finally {
            writeLock.unlock();
        }
    }

    /** Syncs the block files, then the WAL: from here on, every slot not in the index may be overwritten. */
    private void syncLocked() {
        files.sync();
        try {
            if (!space.readOnly()) {
                db.flushWal(true);
            }
        } catch (RocksDBException e) {
            throw failure("sync", e);
        }
        freeSlots.synced();
        syncs++;
    }

    /** How many times the store has synced, for tests. */
    long syncs() {
        writeLock.lock();
        try {
            return syncs;
        } finally {
            writeLock.unlock();
        }
    }

    /** Flushes the index's memtables to SST files now and waits, for tests; returns whether block data was left unsynced. */
    boolean flushIndexLeavesUnsyncedData() {
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            db.flush(options, List.of(blocks));
        } catch (RocksDBException e) {
            throw failure("flush the index", e);
        }
        return blockDataUnsynced();
    }

    /** Whether some block data is not synced yet, for tests. */
    boolean blockDataUnsynced() {
        return files.unsynced();
    }

    /** Bytes in the block files of the images used since the start (two slots per block, holes included), for metrics. */
    public long blockFileBytes() {
        return files.totalBytes();
    }

    /** A RocksDB property summed over the column families, for metrics. */
    public long longProperty(String property) {
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

    @Override
    public void close() {
        try {
            stopSyncer();
            sync();
        } finally {
            db.close();
            closeResources();
        }
    }

    /** Lets a background sync end; it is not interrupted, as an interrupt would close the block files' channels. */
    private void stopSyncer() {
        syncer.shutdown();
        try {
            if (!syncer.awaitTermination(1, TimeUnit.MINUTES)) {
                log.warn("a background sync still runs after a minute; closing anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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


    static HeliotropeException failure(String action, RocksDBException e) {
        return StorageErrors.failure("RocksDB failed to " + action, e);
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
