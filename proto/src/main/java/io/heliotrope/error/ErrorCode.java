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
    SITE_NOT_FOUND(Kind.USER),
    VM_NOT_FOUND(Kind.USER),
    VM_EXISTS(Kind.CONFLICT),
    /** The VM's state forbids the call now: it runs (or not), or a migration of it is in flight. */
    VM_BUSY(Kind.CONFLICT),
    APPLICATION_NOT_FOUND(Kind.USER),
    APPLICATION_EXISTS(Kind.CONFLICT),
    /** This controller's scheduler stands by: another one is elected to decide. */
    NOT_LEADER(Kind.CONFLICT),
    /** A program this call needs (QEMU) is not installed here. */
    TOOL_MISSING(Kind.USER),
    /** Another site holds the image's write lease. */
    LEASE_HELD(Kind.CONFLICT),
    /** The caller's lease epoch is no longer current: it was fenced, expired or released. */
    STALE_LEASE(Kind.CONFLICT),
    /** The block's current version is held by another site and this site has no copy of it. */
    BLOCK_NOT_LOCAL(Kind.RETRYABLE),
    PEER_UNAVAILABLE(Kind.RETRYABLE),
    SHUTTING_DOWN(Kind.RETRYABLE),
    /** The storage has no room for the write; it may succeed once space is freed. */
    NO_SPACE(Kind.RETRYABLE),
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
