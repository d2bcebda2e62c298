package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.nbd.Extent;
import io.heliotrope.nbd.NbdException;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static java.util.Objects.requireNonNull;

/**
 * The images of a site as the NBD server sees them, and the one place where our errors
 * become its errors: every future that crosses into nbd-frontend fails with an
 * {@link NbdException} whose kind stands for the {@link ErrorCode}. Other callers of
 * {@link ImageExports} (bulk transfer over gRPC) keep getting our errors.
 */
public final class NbdExports implements ExportCatalog {
    private final ImageExports exports;

    public NbdExports(ImageExports exports) {
        this.exports = requireNonNull(exports, "exports is null");
    }

    @Override
    public List<String> exportNames() {
        return exports.exportNames();
    }

    @Override
    public CompletableFuture<BlockDevice> open(String name) {
        return translated(exports.open(name).thenApply(TranslatingDevice::new));
    }

    static NbdException.Kind kind(ErrorCode code) {
        return switch (code) {
            case INVALID_ARGUMENT, SITE_NOT_FOUND -> NbdException.Kind.INVALID;
            case IMAGE_NOT_FOUND -> NbdException.Kind.UNKNOWN_EXPORT;
            case OUT_OF_RANGE, NO_SPACE -> NbdException.Kind.NO_SPACE;
            case READ_ONLY, IMAGE_EXISTS, IMAGE_IN_USE, LEASE_HELD -> NbdException.Kind.NOT_PERMITTED;
            case SHUTTING_DOWN -> NbdException.Kind.SHUTTING_DOWN;
            case PEER_UNAVAILABLE, STALE_LEASE, BLOCK_NOT_LOCAL -> NbdException.Kind.UNAVAILABLE;
            case STORAGE_FAILURE -> NbdException.Kind.FAILURE;
        };
    }

    /** Our errors as the NBD server's; any other failure passes as it is, for the server to treat as a fault. */
    static RuntimeException translate(Throwable failure) {
        if (HeliotropeException.unwrap(failure) instanceof HeliotropeException e) {
            return new NbdException(kind(e.code()), e.getMessage(), e);
        }
        return failure instanceof CompletionException completion ? completion : new CompletionException(failure);
    }

    static <T> CompletableFuture<T> translated(CompletableFuture<T> future) {
        return future.exceptionally(failure -> {
            throw translate(failure);
        });
    }

    /** An image device whose futures fail with {@link NbdException}s. */
    record TranslatingDevice(BlockDevice image) implements BlockDevice {
        @Override
        public long size() {
            return image.size();
        }

        @Override
        public boolean isReadOnly() {
            return image.isReadOnly();
        }

        @Override
        public boolean canTrim() {
            return image.canTrim();
        }

        @Override
        public boolean canZero() {
            return image.canZero();
        }

        @Override
        public boolean canFua() {
            return image.canFua();
        }

        @Override
        public boolean canCache() {
            return image.canCache();
        }

        @Override
        public boolean canMultiConn() {
            return image.canMultiConn();
        }

        @Override
        public CompletableFuture<ByteBuf> read(long offset, int length) {
            return translated(image.read(offset, length));
        }

        @Override
        public CompletableFuture<Void> write(long offset, ByteBuf data, boolean fua) {
            return translated(image.write(offset, data, fua));
        }

        @Override
        public CompletableFuture<Void> flush() {
            return translated(image.flush());
        }

        @Override
        public void startBatch() {
            image.startBatch();
        }

        @Override
        public void endBatch() {
            image.endBatch();
        }

        @Override
        public CompletableFuture<Void> trim(long offset, long length, boolean fua) {
            return translated(image.trim(offset, length, fua));
        }

        @Override
        public CompletableFuture<Void> writeZeroes(long offset, long length, boolean fua, boolean mayTrim) {
            return translated(image.writeZeroes(offset, length, fua, mayTrim));
        }

        @Override
        public CompletableFuture<Void> cache(long offset, long length) {
            return translated(image.cache(offset, length));
        }

        @Override
        public CompletableFuture<List<Extent>> blockStatus(long offset, long length) {
            return translated(image.blockStatus(offset, length));
        }

        @Override
        public void close() {
            image.close();
        }
    }
}
