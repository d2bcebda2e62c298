package io.heliotrope.error;

/**
 * Every error Heliotrope reports. Each edge (gRPC status, NBD errno, CLI exit code,
 * metric tag) translates these in exactly one place, by {@link Kind} or by code.
 */
public enum ErrorCode {
    INVALID_ARGUMENT(Kind.USER),
    OUT_OF_RANGE(Kind.USER),
    IMAGE_NOT_FOUND(Kind.USER),
    IMAGE_EXISTS(Kind.CONFLICT),
    IMAGE_IN_USE(Kind.CONFLICT),
    READ_ONLY(Kind.USER),
    PEER_UNAVAILABLE(Kind.RETRYABLE),
    SHUTTING_DOWN(Kind.RETRYABLE),
    STORAGE_FAILURE(Kind.INTERNAL);

    public enum Kind {
        /** The caller asked for something that cannot be done; asking again will not help. */
        USER,
        /** The request conflicts with the current state (another holder, an existing name). */
        CONFLICT,
        /** A transient condition; the same request may succeed later. */
        RETRYABLE,
        /** A fault of ours. */
        INTERNAL
    }

    private final Kind kind;

    ErrorCode(Kind kind) {
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
