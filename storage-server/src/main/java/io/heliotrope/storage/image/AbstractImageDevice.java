package io.heliotrope.storage.image;

import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportDetails;
import io.heliotrope.storage.view.IoGate.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.image.BlockRanges.blocksCovering;
import static java.util.Objects.requireNonNull;

/**
 * One connection to an image open at this site: it does all that NBD asks of an image
 * (TRIM, WRITE_ZEROES, FUA, multi-conn, CACHE), tells where each block of a range is read
 * from ({@link Locality}), and ends its use of the image once closed.
 */
public abstract class AbstractImageDevice implements BlockDevice {
    protected final OpenImage image;
    /** Runs this connection's calls, in order when it must (a connection's store calls run one at a time). */
    protected final Executor calls;
    private final Runnable onClose;
    private boolean closed;

    /**
     * @param calls runs this connection's calls ({@link #supply}, {@link #compose})
     * @param onClose runs once, when the device first closes
     */
    protected AbstractImageDevice(OpenImage image, Executor calls, Runnable onClose) {
        this.image = requireNonNull(image, "image is null");
        this.calls = requireNonNull(calls, "calls is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
    }

    /** What a connection to an image of {@code sizeBytes} offers, as these devices' capabilities say: for a client that asks before it opens one. */
    public static ExportDetails details(long sizeBytes) {
        return new ExportDetails(sizeBytes, false, true, true);
    }

    /** The {@link Locality} context of [offset, offset + length): descriptors whose flags are {@link Locality#HERE}, {@link Locality#ELSEWHERE} or {@link Locality#ZERO}. */
    public abstract CompletableFuture<List<BlockDescriptor>> locality(long offset, long length);

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
    public boolean canCache() {
        return true;
    }

    /**
     * A read of [offset, offset + length): a buffer of {@code allocator} that {@code blocks}
     * fills with the whole blocks the range covers, from its start; completes with the
     * range's bytes, or fails with the buffer released.
     */
    protected static CompletableFuture<ByteBuf> readInto(ByteBufAllocator allocator, long offset, int length,
            Function<ByteBuf, CompletableFuture<Void>> blocks) {
        int head = (int) (offset % BLOCK_SIZE);
        ByteBuf buffer = allocator.directBuffer(blocksCovering(offset, length) * BLOCK_SIZE);
        return blocks.apply(buffer)
                .whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        buffer.release();
                    }
                })
                .thenApply(ignored -> buffer.setIndex(head, head + length));
    }

    /** Runs {@code action} where this connection's calls run, once the session's gate lets a request of its kind through. */
    protected final <T> CompletableFuture<T> supply(Kind kind, Supplier<T> action) {
        return image.session().gate().run(kind, () -> onCalls(action));
    }

    /** Runs {@code action} where this connection's calls run, for a request the gate let through already. */
    protected final <T> CompletableFuture<T> onCalls(Supplier<T> action) {
        return CompletableFuture.supplyAsync(action, calls);
    }

    /** As {@link #supply}; completes as the future {@code action} returns does. */
    protected final <T> CompletableFuture<T> compose(Kind kind, Supplier<CompletableFuture<T>> action) {
        return supply(kind, action).thenCompose(Function.identity());
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }
}
