package io.heliotrope.nbd.protocol;

import io.heliotrope.nbd.NbdException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_SHUTDOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;

/**
 * The one place that turns a failure into what the protocol lets a server say: an errno
 * for a request in transmission, an error reply for an option in the handshake.
 */
public final class NbdErrors {
    private NbdErrors() {}

    public static NbdError toNbdError(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof NbdException e) {
            return switch (e.kind()) {
                case INVALID, UNKNOWN_EXPORT -> NbdError.EINVAL;
                case NOT_PERMITTED -> NbdError.EPERM;
                case NO_SPACE -> NbdError.ENOSPC;
                case SHUTTING_DOWN -> NbdError.ESHUTDOWN;
                case UNAVAILABLE, FAILURE -> NbdError.EIO;
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

    /** The error reply ({@code NBD_REP_ERR_*}) to an option that failed to open an export. */
    public static int toOptionError(Throwable failure) {
        if (unwrap(failure) instanceof NbdException e) {
            return switch (e.kind()) {
                case UNKNOWN_EXPORT -> REP_ERR_UNKNOWN;
                case SHUTTING_DOWN -> REP_ERR_SHUTDOWN;
                case INVALID, NOT_PERMITTED, NO_SPACE, UNAVAILABLE, FAILURE -> REP_ERR_POLICY;
            };
        }
        return REP_ERR_POLICY;
    }

    /** Whether the failure is a fault of ours, worth a warning in the log, rather than a condition the client can understand. */
    public static boolean isFault(Throwable failure) {
        return !(unwrap(failure) instanceof NbdException e) || e.kind() == NbdException.Kind.FAILURE;
    }

    /** What the client is told: the message of an {@link NbdException}; no other exception's text goes onto the wire. */
    public static String message(Throwable failure) {
        return unwrap(failure) instanceof NbdException e ? e.getMessage() : "internal error";
    }

    /** Strips the {@code CompletionException} and {@code ExecutionException} layers that futures add. */
    static Throwable unwrap(Throwable failure) {
        Throwable current = failure;
        while ((current instanceof CompletionException || current instanceof ExecutionException) && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
