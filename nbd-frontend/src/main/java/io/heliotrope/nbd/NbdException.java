package io.heliotrope.nbd;

import static java.util.Objects.requireNonNull;

/**
 * A failure a {@link BlockDevice} or an {@link ExportCatalog} reports to the NBD server.
 * Its {@link Kind} chooses what the client sees: the errno of a request, or the error
 * reply to an option ({@code NbdErrors} holds that mapping). The message goes to the
 * client as it is.
 */
public final class NbdException extends RuntimeException {
    public enum Kind {
        /** The request or its export is not valid. */
        INVALID,
        /** No export has the name the client gave. */
        UNKNOWN_EXPORT,
        /** The export may not be used so (read-only, or held by someone else). */
        NOT_PERMITTED,
        /** The write does not fit: past the end of the export, or the disk is full. */
        NO_SPACE,
        /** The server is shutting down. */
        SHUTTING_DOWN,
        /** The data is unavailable for now (a peer is unreachable, a lease was lost); the client may retry. */
        UNAVAILABLE,
        /** A fault of the server or its storage. */
        FAILURE
    }

    private final Kind kind;

    public NbdException(Kind kind, String message) {
        super(requireNonNull(message, "message is null"));
        this.kind = requireNonNull(kind, "kind is null");
    }

    public NbdException(Kind kind, String message, Throwable cause) {
        super(requireNonNull(message, "message is null"), cause);
        this.kind = requireNonNull(kind, "kind is null");
    }

    public Kind kind() {
        return kind;
    }
}
