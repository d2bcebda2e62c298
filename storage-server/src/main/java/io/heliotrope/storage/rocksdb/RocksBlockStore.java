package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.ImageNames;
import io.heliotrope.storage.view.ViewCache;
import org.rocksdb.RocksDBException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.LongStream;

import static java.util.Objects.requireNonNull;

/**
 * A {@link BlockStore} with its index in RocksDB ({@link IndexDb}) and block data in
 * {@link BlockFiles}, one file per image with two slots per block; it also keeps the
 * site's {@link #view() view cache}.
 *
 * <p>A write puts each block's data into the slot its index entry does not point at, then
 * commits the index entries in one batch, one entry for each whole group it covers and
 * one for each other block: an entry never points at data not yet written, and a read
 * checks the data against the entry's checksum. A slot is overwritten only once no index
 * state that a crash could bring back points at it: a block written a second time since
 * the last {@link #sync()} (which syncs the block files, then the WAL) has its data put
 * inline, into the same batch as its entry, which leaves both slots alone (a hot block's
 * rewrites cost no sync: one block rewritten at queue depth 32 on a disk, 2.4K/s syncing
 * first), and the block files are synced before RocksDB flushes a memtable. A write of
 * whole groups over such blocks syncs first instead, as group entries have no inline
 * form. So the block files need no cleaning, and a crash shows each block at a version
 * with its own data.
 *
 * <p>The parts: the {@link Catalog} of images; the {@link BlockReader}, which takes no
 * lock; the {@link WritePipeline}, whose write lock guards every change to the index and
 * the {@link Syncer}; the {@link DirtyLog}; {@link IndexScan}, which walks the index.
 * Copies from other sites take the same paths: {@link #readCopies} is a read that returns
 * the version of the entry whose checksum its data matched, and {@link #storeCopies} checks
 * its rule against versions read under the write lock ({@link AcceptedCopies}), then writes
 * and zeroes as {@link #write} and {@link #zeroBlocks} do.
 */
public final class RocksBlockStore implements BlockStore {
    private final BlockFiles files;
    private final IndexDb index;
    private final IndexScan scan;
    private final DirtyLog dirtyLog;
    private final WritePipeline pipeline;
    private final Catalog catalog;
    private final BlockReader reader;
    private final RocksViewCache view;

    public RocksBlockStore(Path directory, long blockCacheBytes) {
        requireNonNull(directory, "directory is null");
        if (Files.isDirectory(directory.resolve("segments"))) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "data directory " + directory
                    + " holds block data in segment files, written by an earlier Heliotrope build that this one cannot read;"
                    + " export the images with that build, or start with another --data-dir");
        }
        try {
            Files.createDirectories(directory);
            files = new BlockFiles(directory.resolve("blocks"), this::blockCount);
            index = new IndexDb(directory.resolve("index"), blockCacheBytes, files);
        } catch (RocksDBException | IOException e) {
            throw StorageErrors.failure("cannot open block store in " + directory, e);
        }
        try {
            IndexCache cache = new IndexCache();
            scan = new IndexScan(index);
            dirtyLog = new DirtyLog(index);
            pipeline = new WritePipeline(index, files, cache, scan, dirtyLog);
            catalog = new Catalog(index, files, cache, scan, pipeline);
            reader = new BlockReader(index, files, cache, scan);
            view = new RocksViewCache(index, pipeline);
        } catch (RuntimeException e) {
            // A catalog that fails to load, say: the database is let go, so the site may open it again.
            index.close();
            throw e;
        }
    }

    private long blockCount(long imageId) {
        return catalog.blockCount(imageId);
    }

    /** The cached global metadata of this site's images, kept in the same database. */
    public ViewCache view() {
        return view;
    }

    @Override
    public ImageInfo createImage(String name, long sizeBytes, UUID identity) {
        return catalog.create(name, sizeBytes, identity);
    }

    @Override
    public List<ImageInfo> listImages() {
        return catalog.list();
    }

    @Override
    public ImageInfo image(String name) {
        return catalog.image(name);
    }

    @Override
    public void deleteImage(String name) {
        catalog.delete(name);
    }

    @Override
    public ImageInfo resizeImage(String name, long sizeBytes) {
        return catalog.resize(name, sizeBytes);
    }

    @Override
    public ImageUsage usage(long imageId) {
        return scan.usage(imageId);
    }

    @Override
    public long beginSession(long imageId) {
        return catalog.beginSession(imageId);
    }

    @Override
    public void read(long imageId, long firstBlock, int count, ByteBuffer destination) {
        reader.read(imageId, firstBlock, count, destination);
    }

    @Override
    public void write(long imageId, long firstBlock, ByteBuffer data, long version, Dirty dirty, boolean sync) {
        pipeline.write(imageId, firstBlock, data, version, dirty, sync);
    }

    @Override
    public CompletableFuture<Void> queueWrite(long imageId, long firstBlock, ByteBuffer data, long version, Dirty dirty, boolean sync) {
        return pipeline.queueWrite(imageId, firstBlock, data, version, dirty, sync);
    }

    @Override
    public void runQueuedWrites() {
        pipeline.runQueuedWrites();
    }

    @Override
    public void zero(long imageId, long firstBlock, long count, long version, Dirty dirty, boolean sync) {
        pipeline.zero(imageId, firstBlock, count, version, dirty, sync);
    }

    @Override
    public List<BlockRun> allocation(long imageId, long firstBlock, long count) {
        return scan.allocation(imageId, firstBlock, count);
    }

    @Override
    public void zeroBlocks(long imageId, long[] blocks, long version, Dirty dirty, boolean sync) {
        pipeline.zeroBlocks(imageId, blocks, version, dirty, sync);
    }

    @Override
    public List<BlockVersion> readCopies(long imageId, long[] blocks, ByteBuffer destination) {
        checkBlocks(imageId, LongStream.of(blocks));
        return reader.readCopies(imageId, blocks, destination);
    }

    @Override
    public boolean[] storeCopies(long imageId, List<Copy> copies, CopyRule rule, boolean sync) {
        checkBlocks(imageId, copies.stream().mapToLong(Copy::block));
        return pipeline.storeCopies(imageId, copies, rule, sync);
    }

    @Override
    public void awaitStoredCopies(long imageId) {
        pipeline.awaitStoredCopies();
    }

    private void checkBlocks(long imageId, LongStream blocks) {
        ImageNames.checkBlocks(imageId, catalog.blockCount(imageId), blocks);
    }

    @Override
    public void sync() {
        pipeline.sync();
    }

    @Override
    public List<BlockVersion> dirtyBlocks(long imageId) {
        return dirtyLog.blocks(imageId);
    }

    @Override
    public void markFlushed(long imageId, List<BlockVersion> flushed) {
        pipeline.markFlushed(imageId, flushed);
    }

    @Override
    public void forEachBlock(long imageId, Consumer<BlockVersion> visitor) {
        scan.forEachBlock(imageId, visitor);
    }

    @Override
    public StoreStats stats() {
        return new StoreStats(files.totalBytes(), index.longProperty("rocksdb.total-sst-files-size"),
                index.longProperty("rocksdb.estimate-live-data-size"), index.longProperty("rocksdb.cur-size-all-mem-tables"),
                index.longProperty("rocksdb.estimate-num-keys"));
    }

    @Override
    public void close() {
        try {
            pipeline.close();
        } finally {
            index.close();
        }
    }

    /** How many times the store has synced, for tests. */
    long syncs() {
        return pipeline.syncs();
    }

    /** Flushes the index's memtables to SST files now and waits, for tests; returns whether block data was left unsynced. */
    boolean flushIndexLeavesUnsyncedData() {
        index.flushBlocks();
        return blockDataUnsynced();
    }

    /** Whether some block data is not synced yet, for tests. */
    boolean blockDataUnsynced() {
        return files.unsynced();
    }
}
