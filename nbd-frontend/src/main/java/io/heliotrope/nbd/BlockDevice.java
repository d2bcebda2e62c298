package io.heliotrope.nbd;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the NBD server serves: one export as seen by one connection.
 *
 * <p>The server validates every request before calling a device, so a device sees only
 * in-range requests ({@code offset + length <= size()}) and only the operations its
 * capabilities declare. Any alignment may reach it. Methods must not block the caller:
 * they return futures, completed on whatever thread the device likes. A future failed
 * with an {@link NbdException} is answered with the NBD error of its kind; any other
 * failure with {@code EIO} (or {@code ENOTSUP}, {@code ENOMEM} where they fit).
 *
 * <p>Where a device lacks a capability, the server emulates it: FUA by a flush after the
 * write, WRITE_ZEROES by writing zeros, CACHE by doing nothing (it is advisory).
 */
public interface BlockDevice extends AutoCloseable {
    long size();

    default boolean isReadOnly() {
        return false;
    }

    default boolean canTrim() {
        return false;
    }

    default boolean canZero() {
        return false;
    }

    default boolean canFua() {
        return false;
    }

    default boolean canCache() {
        return false;
    }

    /** True when a flush on one connection makes every connection's completed writes durable. */
    default boolean canMultiConn() {
        return false;
    }

    /** Reads {@code length} bytes; the caller releases the buffer. */
    CompletableFuture<ByteBuf> read(long offset, int length);

    /**
     * Writes all readable bytes of {@code data} at {@code offset}. The device must not
     * keep {@code data} after the future completes; it may retain it until then.
     */
    CompletableFuture<Void> write(long offset, ByteBuf data, boolean fua);

    /** Makes every completed write durable. */
    CompletableFuture<Void> flush();

    /**
     * Starts a batch of calls: until {@link #endBatch()}, the device may hold back the
     * writes that the calling thread makes, so as to run them together, and leave their
     * futures incomplete meanwhile.
     */
    default void startBatch() {}

    /** Ends the batch: runs the writes held back. */
    default void endBatch() {}

    default CompletableFuture<Void> trim(long offset, long length, boolean fua) {
        throw new UnsupportedOperationException("trim");
    }

    /** Makes the range read as zeros; {@code mayTrim} allows leaving a hole. */
    default CompletableFuture<Void> writeZeroes(long offset, long length, boolean fua, boolean mayTrim) {
        throw new UnsupportedOperationException("writeZeroes");
    }

    /** Brings the range close, for faster reads later. */
    default CompletableFuture<Void> cache(long offset, long length) {
        throw new UnsupportedOperationException("cache");
    }

    /**
     * The allocation state of the range, as consecutive extents starting at
     * {@code offset}; they may cover less than {@code length}, never more than the export.
     */
    default CompletableFuture<List<Extent>> blockStatus(long offset, long length) {
        return CompletableFuture.completedFuture(List.of(Extent.data(length)));
    }

    /** Ends this connection's use of the export. */
    @Override
    void close();
}
