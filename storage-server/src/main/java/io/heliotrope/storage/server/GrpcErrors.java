package io.heliotrope.storage.server;

import io.grpc.Status;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place that turns our errors into gRPC statuses. */
public final class GrpcErrors {
    private static final Logger log = LoggerFactory.getLogger(GrpcErrors.class);

    private GrpcErrors() {}

    public static Status toStatus(Throwable failure) {
        Throwable cause = HeliotropeException.unwrap(failure);
        if (!(cause instanceof HeliotropeException e)) {
            log.error("internal error", cause);
            return Status.INTERNAL.withDescription("internal error: " + cause);
        }
        Status status = switch (e.code()) {
            case INVALID_ARGUMENT, READ_ONLY -> Status.INVALID_ARGUMENT;
            case OUT_OF_RANGE -> Status.OUT_OF_RANGE;
            case IMAGE_NOT_FOUND -> Status.NOT_FOUND;
            case IMAGE_EXISTS -> Status.ALREADY_EXISTS;
            case IMAGE_IN_USE -> Status.FAILED_PRECONDITION;
            case PEER_UNAVAILABLE, SHUTTING_DOWN -> Status.UNAVAILABLE;
            case STORAGE_FAILURE -> Status.INTERNAL;
        };
        if (e.code().kind() == ErrorCode.Kind.INTERNAL) {
            log.error("internal error", e);
        }
        return status.withDescription(e.getMessage());
    }
}
