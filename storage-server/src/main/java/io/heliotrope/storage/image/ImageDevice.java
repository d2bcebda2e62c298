package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.Extent;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockRun;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * One connection's view of an open image: byte ranges become whole-block store calls,
 * run on the store's executor. A write that covers part of a block reads the block,
 * merges and writes it back under that block's lock. TRIM drops only whole blocks (it
 * is advisory); WRITE_ZEROES zeroes partial edges by writing zeros. Whole-block writes
 * made in a batch are queued in the store and run together when the batch ends, so
 * their index entries commit at once.
 */
final class ImageDevice implements BlockDevice {
    private static final byte[] ZEROS = new byte[BLOCK_SIZE];

    private final OpenImage image;
    private final ImageSession session;
    private final BlockStore store;
    private final Dirty dirty;
    private final Executor executor;
    private final ByteBufAllocator allocator;
    private final Runnable onClose;
    private final long imageId;
    private boolean closed;
    /** Confined to the thread that starts and ends batches. */
    private boolean batching;
    /** Whether a write of the batch was queued, confined as {@code batching} is. */
    private boolean queuedInBatch;

    /**
     * @param dirty whether writes join the dirty set
     * @param executor runs store calls
     */
    ImageDevice(OpenImage image, BlockStore store, Dirty dirty, Executor executor, ByteBufAllocator allocator, Runnable onClose) {
        this.image = requireNonNull(image, "image is null");
        this.session = image.session();
        this.store = requireNonNull(store, "store is null");
        this.dirty = requireNonNull(dirty, "dirty is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
        this.imageId = image.info().id();
    }

    @Override
    public long size() {
        return image.info().sizeBytes();
    }

    @Override
    public boolean canTrim() {
        return true;
    }

    @Override
    public boolean canZero() {
        return true;
    }

    @Override
    public boolean canFua() {
        return true;
    }

    @Override
    public boolean canMultiConn() {
        return true;
    }

    @Override
    public CompletableFuture<ByteBuf> read(long offset, int length) {
        return CompletableFuture.supplyAsync(() -> {
            long first = offset / BLOCK_SIZE;
            int head = (int) (offset % BLOCK_SIZE);
            int count = blocksCovering(offset, length);
            ByteBuf buffer = allocator.directBuffer(count * BLOCK_SIZE);
            try {
                readBlocks(first, count, buffer.nioBuffer(0, count * BLOCK_SIZE));
                return buffer.setIndex(head, head + length);
            } catch (RuntimeException e) {
                buffer.release();
                throw e;
            }
        }, executor);
    }

    @Override
    public CompletableFuture<Void> write(long offset, ByteBuf data, boolean fua) {
        int length = data.readableBytes();
        if (offset % BLOCK_SIZE == 0 && length % BLOCK_SIZE == 0) {
            boolean queue = batching;
            queuedInBatch |= queue;
            return CompletableFuture.supplyAsync(() -> {
                session.checkCurrent();
                if (queue) {
                    return store.queueWrite(imageId, offset / BLOCK_SIZE, data.nioBuffer(), image.nextVersion(), dirty, fua);
                }
                store.write(imageId, offset / BLOCK_SIZE, data.nioBuffer(), image.nextVersion(), dirty, fua);
                return CompletableFuture.<Void>completedFuture(null);
            }, executor).thenCompose(written -> written).thenRun(() -> session.wrote(offset / BLOCK_SIZE, length / BLOCK_SIZE));
        }
        return CompletableFuture.runAsync(() -> {
            ByteBuffer source = data.nioBuffer();
            readModifyWrite(offset, length, (merged, at) -> merged.put(at, source, 0, length), fua);
        }, executor);
    }

    /** Whole-block writes in a batch are queued in the store, to commit their index entries together. */
    @Override
    public void startBatch() {
        batching = true;
    }

    /** Runs the store's queued writes, after the calls made before; a batch that queued none hands nothing over. */
    @Override
    public void endBatch() {
        batching = false;
        if (queuedInBatch) {
            queuedInBatch = false;
            executor.execute(store::runQueuedWrites);
        }
    }

    @Override
    public CompletableFuture<Void> flush() {
        return run(store::sync);
    }

    @Override
    public CompletableFuture<Void> trim(long offset, long length, boolean fua) {
        return run(() -> {
            long first = ceilDiv(offset, BLOCK_SIZE);
            long end = (offset + length) / BLOCK_SIZE;
            if (end > first) {
                zeroBlocks(first, end - first, fua);
            }
        });
    }

    @Override
    public CompletableFuture<Void> writeZeroes(long offset, long length, boolean fua, boolean mayTrim) {
        return run(() -> {
            long first = ceilDiv(offset, BLOCK_SIZE);
            long end = (offset + length) / BLOCK_SIZE;
            if (end <= first) {
                zeroPartial(offset, (int) length, fua);
                return;
            }
            long headBytes = first * BLOCK_SIZE - offset;
            if (headBytes > 0) {
                zeroPartial(offset, (int) headBytes, false);
            }
            long tailBytes = offset + length - end * BLOCK_SIZE;
            if (tailBytes > 0) {
                zeroPartial(end * BLOCK_SIZE, (int) tailBytes, false);
            }
            zeroBlocks(first, end - first, fua);
        });
    }

    @Override
    public CompletableFuture<List<Extent>> blockStatus(long offset, long length) {
        return supply(() -> {
            long first = offset / BLOCK_SIZE;
            long end = ceilDiv(offset + length, BLOCK_SIZE);
            List<Extent> extents = new ArrayList<>();
            long position = offset;
            for (BlockRun run : withStale(store.allocation(imageId, first, end - first))) {
                long runEnd = Math.min((run.firstBlock() + run.count()) * BLOCK_SIZE, offset + length);
                long runLength = runEnd - position;
                Extent extent = run.state() == BlockState.DATA ? Extent.data(runLength) : Extent.zeroHole(runLength);
                Extent last = extents.isEmpty() ? null : extents.get(extents.size() - 1);
                if (last != null && last.hole() == extent.hole()) {
                    // Unwritten blocks and zero markers both read as holes: one extent.
                    extents.set(extents.size() - 1, new Extent(last.length() + runLength, last.hole(), last.zero()));
                } else {
                    extents.add(extent);
                }
                position = runEnd;
            }
            return extents;
        });
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }

    /** The store's runs, with blocks whose local copy is stale shown as the current version is. */
    private List<BlockRun> withStale(List<BlockRun> runs) {
        SortedMap<Long, GlobalBlock> stale = runs.isEmpty() ? Collections.emptySortedMap()
                : session.stale(runs.get(0).firstBlock(), runs.get(runs.size() - 1).firstBlock() + runs.get(runs.size() - 1).count() - runs.get(0).firstBlock());
        if (stale.isEmpty()) {
            return runs;
        }
        List<BlockRun> merged = new ArrayList<>();
        for (BlockRun run : runs) {
            long next = run.firstBlock();
            for (GlobalBlock entry : stale.subMap(run.firstBlock(), run.firstBlock() + run.count()).values()) {
                BlockRun.append(merged, next, entry.block() - next, run.state());
                BlockRun.append(merged, entry.block(), 1, entry.zero() ? (entry.version() == 0 ? BlockState.UNWRITTEN : BlockState.ZERO) : BlockState.DATA);
                next = entry.block() + 1;
            }
            BlockRun.append(merged, next, run.firstBlock() + run.count() - next, run.state());
        }
        return merged;
    }

    /** Reads whole blocks; a stale block reads as zeros when its current version is a zero marker, else fails. */
    private void readBlocks(long first, int count, ByteBuffer destination) {
        session.checkCurrent();
        SortedMap<Long, GlobalBlock> stale = session.stale(first, count);
        for (GlobalBlock entry : stale.values()) {
            if (!entry.zero()) {
                throw new HeliotropeException(ErrorCode.BLOCK_NOT_LOCAL, "image '" + image.info().name() + "': block " + entry.block()
                        + " is current only at site '" + entry.holder() + "' (version " + entry.version() + "), and this site cannot fetch blocks from other sites yet");
            }
        }
        int start = destination.position();
        store.read(imageId, first, count, destination);
        for (long block : stale.keySet()) {
            int at = start + (int) (block - first) * BLOCK_SIZE;
            destination.put(at, ZEROS, 0, BLOCK_SIZE);
        }
    }

    /** Zero markers over whole blocks, including stale copies this site never wrote. */
    private void zeroBlocks(long first, long count, boolean fua) {
        session.checkCurrent();
        long version = image.nextVersion();
        SortedMap<Long, GlobalBlock> stale = session.stale(first, count);
        store.zero(imageId, first, count, version, dirty, fua && stale.isEmpty());
        if (!stale.isEmpty()) {
            store.zeroBlocks(imageId, stale.keySet().stream().mapToLong(Long::longValue).toArray(), version, dirty, fua);
        }
        session.wrote(first, count);
    }

    private void zeroPartial(long offset, int length, boolean fua) {
        readModifyWrite(offset, length, (merged, at) -> {
            for (int i = 0; i < length; i++) {
                merged.put(at + i, (byte) 0);
            }
        }, fua);
    }

    private interface Merge {
        void into(ByteBuffer blocks, int at);
    }

    /** Reads the blocks that [offset, offset + length) touches, merges, writes them back, under their locks. */
    private void readModifyWrite(long offset, int length, Merge merge, boolean fua) {
        long first = offset / BLOCK_SIZE;
        int count = blocksCovering(offset, length);
        ReentrantLock[] locks = image.locksFor(first, first + count - 1);
        locks[0].lock();
        locks[1].lock();
        try {
            ByteBuffer merged = ByteBuffer.allocate(count * BLOCK_SIZE);
            readBlocks(first, count, merged);
            merge.into(merged, (int) (offset - first * BLOCK_SIZE));
            store.write(imageId, first, merged.clear(), image.nextVersion(), dirty, fua);
            session.wrote(first, count);
        } finally {
            locks[1].unlock();
            locks[0].unlock();
        }
    }

    private static int blocksCovering(long offset, long length) {
        return (int) (ceilDiv(offset + length, BLOCK_SIZE) - offset / BLOCK_SIZE);
    }

    private static long ceilDiv(long value, long divisor) {
        return -Math.floorDiv(-value, divisor);
    }

    private CompletableFuture<Void> run(Runnable action) {
        return CompletableFuture.runAsync(action, executor);
    }

    private <T> CompletableFuture<T> supply(Supplier<T> action) {
        return CompletableFuture.supplyAsync(action, executor);
    }
}
