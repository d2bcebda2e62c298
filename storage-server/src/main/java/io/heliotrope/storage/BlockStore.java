package io.heliotrope.storage;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The data store of a site: images made of {@value #BLOCK_SIZE}-byte blocks, each
 * stored with the version of its copy (DESIGN.md sections 3 and 5).
 *
 * <p>A block is in one of three states: never written (version 0, reads as zeros),
 * data, or a zero marker (reads as zeros, holds no data). A block's version and data
 * change together, atomically, even across a crash. Calls block: callers run them on
 * an executor the store's owner bounds.
 */
public interface BlockStore extends AutoCloseable {
    int BLOCK_SIZE = 4096;

    /** Creates a copy of the controller's image {@code identity}, or with a null one a standalone image. */
    ImageInfo createImage(String name, long sizeBytes, UUID identity);

    default ImageInfo createImage(String name, long sizeBytes) {
        return createImage(name, sizeBytes, null);
    }

    List<ImageInfo> listImages();

    /** Fails with {@code IMAGE_NOT_FOUND} when there is no such image. */
    ImageInfo image(String name);

    void deleteImage(String name);

    /** Changes the size; blocks beyond a smaller size are dropped. */
    ImageInfo resizeImage(String name, long sizeBytes);

    /** Counts the blocks of an image by state. */
    ImageUsage usage(long imageId);

    /** Starts a write session: returns a session epoch larger than any returned before for this image. */
    long beginSession(long imageId);

    /** Reads {@code count} blocks into {@code destination}, advancing its position. */
    void read(long imageId, long firstBlock, int count, ByteBuffer destination);

    /** Stores the whole blocks in {@code data} from {@code firstBlock} on, all with {@code version}. */
    void write(long imageId, long firstBlock, ByteBuffer data, long version, Dirty dirty, boolean sync);

    /**
     * Queues a {@link #write}, to run with the writes queued beside it by the next
     * {@link #runQueuedWrites()}, {@link #sync()} or other write, on whichever thread makes
     * that call. {@code data} must stay as it is until the returned future completes.
     */
    default CompletableFuture<Void> queueWrite(long imageId, long firstBlock, ByteBuffer data, long version, Dirty dirty, boolean sync) {
        try {
            write(imageId, firstBlock, data, version, dirty, sync);
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Runs the queued writes, unless another thread is about to. */
    default void runQueuedWrites() {}

    /**
     * Replaces the data of the blocks in the range with zero markers of {@code version}.
     * Blocks never written stay so: they already read as zeros.
     */
    void zero(long imageId, long firstBlock, long count, long version, Dirty dirty, boolean sync);

    /** The state of each block in the range, as runs in block order covering all of it. */
    List<BlockRun> allocation(long imageId, long firstBlock, long count);

    /** Zero markers of {@code version} on exactly these blocks, whatever state they are in. */
    void zeroBlocks(long imageId, long[] blocks, long version, Dirty dirty, boolean sync);

    /**
     * Reads blocks with the versions of their copies, each block's version and data in one
     * step: a write that runs meanwhile is seen whole or not at all. {@code destination}
     * receives {@value #BLOCK_SIZE} bytes per block, in the order of {@code blocks}, zeros for
     * a block that holds no data; its position advances past them.
     */
    List<BlockVersion> readCopies(long imageId, long[] blocks, ByteBuffer destination);

    /**
     * Stores copies of blocks that came from another site (a fetch or a push); they never
     * join the dirty set. Each copy is stored only if {@code rule} accepts it against the
     * version of the local copy (0 when there is none), checked and stored in one atomic
     * step with respect to every other write of the block, so a write made meanwhile is
     * never lost under an older copy. Returns, per copy, whether it was stored.
     */
    boolean[] storeCopies(long imageId, List<Copy> copies, CopyRule rule, boolean sync);

    /**
     * Returns once every {@link #storeCopies} of the image that started before this call has
     * finished: a caller whose rule refuses copies from some moment on, and that calls this
     * after that moment, then reads every copy the store will ever take under the old answer.
     */
    void awaitStoredCopies(long imageId);

    /** Makes every completed write durable. */
    void sync();

    /**
     * Blocks written or zeroed here and not yet flushed to the controller, in block
     * order. A write or zero with {@link Dirty#RECORD} records its blocks as dirty in the
     * same atomic batch.
     */
    List<BlockVersion> dirtyBlocks(long imageId);

    /** Forgets dirty entries that still hold these versions; a block written again since stays dirty. */
    void markFlushed(long imageId, List<BlockVersion> flushed);

    /** Calls {@code visitor} for every block that is not unwritten, in block order. */
    void forEachBlock(long imageId, Consumer<BlockVersion> visitor);

    /** Sizes of what the store keeps, for metrics; a store without block files or an index has zeros there. */
    StoreStats stats();

    @Override
    void close();

    /** A run of blocks in one state. */
    record BlockRun(long firstBlock, long count, BlockState state) {
        /** Adds blocks after the last run of {@code runs}, extending it when the state is the same. */
        public static void append(List<BlockRun> runs, long first, long count, BlockState state) {
            if (count == 0) {
                return;
            }
            int last = runs.size() - 1;
            if (last >= 0 && runs.get(last).state() == state) {
                runs.set(last, new BlockRun(runs.get(last).firstBlock(), runs.get(last).count() + count, state));
            } else {
                runs.add(new BlockRun(first, count, state));
            }
        }
    }

    /** Whether a write or zero records its blocks as dirty, per call. */
    enum Dirty {
        /** A write at a site with a controller: its blocks stay dirty until flushed to the controller. */
        RECORD,
        /**
         * A write with nobody to tell: a standalone site has no controller, and a copy that
         * arrives from a peer is reported to the controller by the site that wrote it.
         */
        SKIP
    }

    enum BlockState {
        UNWRITTEN,
        DATA,
        ZERO
    }

    record ImageUsage(long dataBlocks, long zeroBlocks) {}

    /**
     * What a store keeps, in bytes and keys.
     *
     * @param blockFileBytes the block files of the images used since the start (two slots per block, holes included)
     * @param indexSstBytes the index's SST files
     * @param indexLiveDataBytes the index's live data, estimated
     * @param indexMemtableBytes the index's memtables
     * @param indexKeys the index's keys, estimated
     */
    record StoreStats(long blockFileBytes, long indexSstBytes, long indexLiveDataBytes, long indexMemtableBytes, long indexKeys) {}

    /**
     * A block's copy as it travels between sites: {@code data} holds its {@value #BLOCK_SIZE}
     * bytes from its position, or is null for a zero marker (4 KiB of zeros never travel).
     */
    record Copy(long block, long version, ByteBuffer data) {
        public Copy {
            if (data != null && data.remaining() != BLOCK_SIZE) {
                throw new IllegalArgumentException("a copy holds " + BLOCK_SIZE + " bytes, not " + data.remaining());
            }
        }

        public boolean zero() {
            return data == null;
        }
    }

    /** Whether a copy from another site may replace the local one, whose version is {@code localVersion} (0: none). */
    @FunctionalInterface
    interface CopyRule {
        /** A copy replaces an older one: a fetched committed version never replaces a newer local write. */
        CopyRule NEWER = (copy, localVersion) -> copy.version() > localVersion;

        boolean accepts(Copy copy, long localVersion);
    }

    /** A block's local version and state. */
    record BlockVersion(long block, long version, BlockState state) {}

    /** A block's latest committed version and the site that holds it; a null holder is a zero marker. */
    record GlobalBlock(long block, long version, String holder) {
        public boolean zero() {
            return holder == null;
        }
    }
}
