package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.nbd.ExportDetails;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.nbd.NbdException;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * The images of a site as the NBD server sees them, and the one place where our errors
 * become its errors: the server asks {@link #translate} for the {@link NbdException}
 * whose kind stands for the {@link ErrorCode} of a failed open or request.
 */
public final class NbdExports implements ExportCatalog {
    private final ImageExports exports;

    public NbdExports(ImageExports exports) {
        this.exports = requireNonNull(exports, "exports is null");
    }

    @Override
    public CompletableFuture<List<ListedExport>> list() {
        return exports.list();
    }

    /** Without opening the image: an open takes its write lease, and may wait for another site's. */
    @Override
    public CompletableFuture<ExportDetails> details(String name) {
        return exports.details(name);
    }

    @Override
    public boolean exists(String name) {
        return exports.mayExist(name);
    }

    @Override
    public CompletableFuture<BlockDevice> open(String name) {
        return exports.open(name);
    }

    /** Our errors as the NBD server's; any other failure passes as it is, for the server to treat as a fault. */
    @Override
    public Throwable translate(Throwable failure) {
        if (HeliotropeException.unwrap(failure) instanceof HeliotropeException e) {
            return new NbdException(kind(e.code()), e.getMessage(), e);
        }
        return failure;
    }

    static NbdException.Kind kind(ErrorCode code) {
        return switch (code) {
            case INVALID_ARGUMENT, SITE_NOT_FOUND, VM_NOT_FOUND, APPLICATION_NOT_FOUND, TOOL_MISSING -> NbdException.Kind.INVALID;
            case IMAGE_NOT_FOUND -> NbdException.Kind.UNKNOWN_EXPORT;
            case OUT_OF_RANGE, NO_SPACE -> NbdException.Kind.NO_SPACE;
            case READ_ONLY, IMAGE_EXISTS, IMAGE_IN_USE, LEASE_HELD, VM_EXISTS, VM_BUSY, APPLICATION_EXISTS, NOT_LEADER -> NbdException.Kind.NOT_PERMITTED;
            case SHUTTING_DOWN -> NbdException.Kind.SHUTTING_DOWN;
            case PEER_UNAVAILABLE, STALE_LEASE, BLOCK_NOT_LOCAL -> NbdException.Kind.UNAVAILABLE;
            case STORAGE_FAILURE -> NbdException.Kind.FAILURE;
        };
    }

}
