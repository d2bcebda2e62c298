package io.heliotrope.storage.image;

import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.Extent;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.image.BlockRanges.Run;
import io.heliotrope.storage.view.DataView;
import io.heliotrope.storage.view.IoGate.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.image.BlockRanges.blocksCovering;
import static io.heliotrope.storage.image.BlockRanges.descriptors;
import static io.heliotrope.storage.image.BlockRanges.firstWholeBlock;
import static java.util.Objects.requireNonNull;

/**
 * One connection to an open image, over NBD: byte ranges become whole-block calls to the
 * image's {@link DataView}, run on the connection's executor. A write that covers part of
 * a block has the block made current first, then reads, merges and writes it back under
 * that block's lock. TRIM drops only whole blocks (it is advisory); WRITE_ZEROES zeroes
 * partial edges by writing zeros. Whole-block writes made in a batch are queued in the
 * store and run together when the batch ends, so their index entries commit at once.
 */
final class ImageDevice extends AbstractImageDevice {
    private final DataView view;
    private final BlockStore store;
    private final Executor flushes;
    private final ByteBufAllocator allocator;
    /** Confined to the thread that starts and ends batches. */
    private boolean batching;
    /** Whether a write of the batch was queued, confined as {@code batching} is. */
    private boolean queuedInBatch;

    /**
     * @param executor runs this connection's calls
     * @param flushes runs its FLUSHes, which wait for the disk
     */
    ImageDevice(OpenImage image, BlockStore store, Executor executor, Executor flushes, ByteBufAllocator allocator, Runnable onClose) {
        super(image, executor, onClose);
        this.view = image.view();
        this.store = requireNonNull(store, "store is null");
        this.flushes = requireNonNull(flushes, "flushes is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    /** Fetches every block of the range that is current only at another site, so that later reads are served here. */
    @Override
    public CompletableFuture<Void> cache(long offset, long length) {
        long first = offset / BLOCK_SIZE;
        return compose(Kind.READ, () -> view.whenCurrent(first, blocksCovering(offset, length), () -> CompletableFuture.completedFuture(null)));
    }

    /** Completes when the view has read every block, fetched or not. */
    @Override
    public CompletableFuture<ByteBuf> read(long offset, int length) {
        int count = blocksCovering(offset, length);
        return compose(Kind.READ, () -> readInto(allocator, offset, length, buffer -> view.read(offset / BLOCK_SIZE, count, buffer.nioBuffer(0, count * BLOCK_SIZE))));
    }

    @Override
    public CompletableFuture<Void> write(long offset, ByteBuf data, boolean fua) {
        int length = data.readableBytes();
        if (offset % BLOCK_SIZE == 0 && length % BLOCK_SIZE == 0) {
            boolean batched = batching;
            // Queued only when the gate lets it through at once: then the batch's end runs it; one that waited runs alone.
            return image.session().gate().run(Kind.WRITE, atOnce -> {
                boolean queue = batched && atOnce;
                queuedInBatch |= queue;
                return onCalls(() -> queue ? view.queueWrite(offset / BLOCK_SIZE, data.nioBuffer(), image.nextVersion(), fua)
                        : view.write(offset / BLOCK_SIZE, data.nioBuffer(), image.nextVersion(), fua)).thenCompose(Function.identity());
            });
        }
        return compose(Kind.WRITE, () -> {
            ByteBuffer source = data.nioBuffer();
            return readModifyWrite(offset, length, (merged, at) -> merged.put(at, source, 0, length), fua);
        });
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
            calls.execute(store::runQueuedWrites);
        }
    }

    @Override
    public CompletableFuture<Void> flush() {
        return image.session().gate().run(Kind.FLUSH, () -> view.flush(() -> CompletableFuture.runAsync(store::sync, flushes)));
    }

    @Override
    public CompletableFuture<Void> trim(long offset, long length, boolean fua) {
        return compose(Kind.WRITE, () -> {
            long first = firstWholeBlock(offset);
            long end = (offset + length) / BLOCK_SIZE;
            return end > first ? view.zero(first, end - first, image.nextVersion(), fua) : CompletableFuture.completedFuture(null);
        });
    }

    @Override
    public CompletableFuture<Void> writeZeroes(long offset, long length, boolean fua, boolean mayTrim) {
        return compose(Kind.WRITE, () -> {
            long first = firstWholeBlock(offset);
            long end = (offset + length) / BLOCK_SIZE;
            if (end <= first) {
                return zeroPartial(offset, (int) length, fua);
            }
            long headBytes = first * BLOCK_SIZE - offset;
            long tailBytes = offset + length - end * BLOCK_SIZE;
            CompletableFuture<Void> head = headBytes > 0 ? zeroPartial(offset, (int) headBytes, false) : CompletableFuture.completedFuture(null);
            CompletableFuture<Void> tail = tailBytes > 0 ? zeroPartial(end * BLOCK_SIZE, (int) tailBytes, false) : CompletableFuture.completedFuture(null);
            // The whole blocks go last, so that their FUA makes the edges durable too.
            return CompletableFuture.allOf(head, tail).thenCompose(ignored -> view.zero(first, end - first, image.nextVersion(), fua));
        });
    }

    @Override
    public CompletableFuture<List<Extent>> blockStatus(long offset, long length) {
        return supply(Kind.READ, () -> BlockRanges.allocation(descriptors(offset, length, view.allocation(offset / BLOCK_SIZE, blocksCovering(offset, length)).stream()
                .map(run -> new Run(run.firstBlock(), run.count(), run.state() == BlockState.DATA ? 0 : 1)).toList())));
    }

    /** The {@link Locality} context of the range: where each part of it is read from. */
    @Override
    public CompletableFuture<List<BlockDescriptor>> locality(long offset, long length) {
        return supply(Kind.READ, () -> descriptors(offset, length, view.placement(offset / BLOCK_SIZE, blocksCovering(offset, length)).stream()
                .map(run -> new Run(run.firstBlock(), run.count(), Locality.flags(run.place()))).toList()));
    }

    private CompletableFuture<Void> zeroPartial(long offset, int length, boolean fua) {
        return readModifyWrite(offset, length, (merged, at) -> {
            for (int i = 0; i < length; i++) {
                merged.put(at + i, (byte) 0);
            }
        }, fua);
    }

    private interface Merge {
        void into(ByteBuffer blocks, int at);
    }

    /**
     * Has the blocks that [offset, offset + length) touches made current here, then reads,
     * merges and writes them back under their locks: no lock is held while a block is fetched.
     */
    private CompletableFuture<Void> readModifyWrite(long offset, int length, Merge merge, boolean fua) {
        long first = offset / BLOCK_SIZE;
        int count = blocksCovering(offset, length);
        return view.whenCurrent(first, count, () -> {
            ReentrantLock[] locks = image.locksFor(first, first + count - 1);
            locks[0].lock();
            locks[1].lock();
            try {
                ByteBuffer merged = ByteBuffer.allocate(count * BLOCK_SIZE);
                view.readCurrent(first, count, merged);
                merge.into(merged, (int) (offset - first * BLOCK_SIZE));
                return view.write(first, merged.clear(), image.nextVersion(), fua);
            } finally {
                locks[1].unlock();
                locks[0].unlock();
            }
        });
    }
}
