package io.heliotrope.error;

/** The one place that turns our errors into HTTP statuses. */
public final class HttpErrors {
    private HttpErrors() {}

    public static int status(ErrorCode code) {
        return switch (code) {
            case INVALID_ARGUMENT, OUT_OF_RANGE, READ_ONLY -> 400;
            case IMAGE_NOT_FOUND, SITE_NOT_FOUND, VM_NOT_FOUND, APPLICATION_NOT_FOUND -> 404;
            case IMAGE_EXISTS, IMAGE_IN_USE, LEASE_HELD, STALE_LEASE, VM_EXISTS, VM_BUSY, APPLICATION_EXISTS, NOT_LEADER -> 409;
            case TOOL_MISSING -> 501;
            case PEER_UNAVAILABLE, SHUTTING_DOWN, BLOCK_NOT_LOCAL -> 503;
            case NO_SPACE -> 507;
            case STORAGE_FAILURE -> 500;
        };
    }
}
