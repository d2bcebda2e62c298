package io.heliotrope.nbd.server;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.protocol.NbdError;

/** The one place that turns a device's failure into an NBD errno. */
public final class NbdErrors {
    private NbdErrors() {}

    public static NbdError toNbdError(Throwable failure) {
        Throwable cause = HeliotropeException.unwrap(failure);
        if (cause instanceof HeliotropeException e) {
            return switch (e.code()) {
                case INVALID_ARGUMENT, IMAGE_NOT_FOUND, SITE_NOT_FOUND -> NbdError.EINVAL;
                case OUT_OF_RANGE -> NbdError.ENOSPC;
                case READ_ONLY, IMAGE_EXISTS, IMAGE_IN_USE, LEASE_HELD -> NbdError.EPERM;
                case SHUTTING_DOWN -> NbdError.ESHUTDOWN;
                case PEER_UNAVAILABLE, STORAGE_FAILURE, STALE_LEASE, BLOCK_NOT_LOCAL -> NbdError.EIO;
            };
        }
        if (cause instanceof UnsupportedOperationException) {
            return NbdError.ENOTSUP;
        }
        if (cause instanceof OutOfMemoryError) {
            return NbdError.ENOMEM;
        }
        return NbdError.EIO;
    }
}
