package io.heliotrope.error;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns our errors into gRPC statuses and back. The status code is
 * for generic clients; the exact {@link ErrorCode} travels in a trailer so that our own
 * clients get back the error the server raised.
 */
public final class GrpcErrors {
    private static final Logger log = LoggerFactory.getLogger(GrpcErrors.class);
    private static final Metadata.Key<String> ERROR_CODE = Metadata.Key.of("heliotrope-error-code", Metadata.ASCII_STRING_MARSHALLER);

    private GrpcErrors() {}

    /** What a service sends for a failure: our errors with their code, anything else as INTERNAL. */
    public static StatusRuntimeException toStatus(Throwable failure) {
        Throwable cause = HeliotropeException.unwrap(failure);
        if (!(cause instanceof HeliotropeException e)) {
            log.error("internal error", cause);
            // The details stay in the server's log: no Java exception goes onto the wire.
            return Status.INTERNAL.withDescription("internal error; the server's log has the details").asRuntimeException();
        }
        Status status = switch (e.code()) {
            case INVALID_ARGUMENT, READ_ONLY -> Status.INVALID_ARGUMENT;
            case OUT_OF_RANGE -> Status.OUT_OF_RANGE;
            case IMAGE_NOT_FOUND, SITE_NOT_FOUND, VM_NOT_FOUND, APPLICATION_NOT_FOUND -> Status.NOT_FOUND;
            case IMAGE_EXISTS, VM_EXISTS, APPLICATION_EXISTS -> Status.ALREADY_EXISTS;
            case IMAGE_IN_USE, LEASE_HELD, STALE_LEASE, VM_BUSY, TOOL_MISSING, NOT_LEADER -> Status.FAILED_PRECONDITION;
            case PEER_UNAVAILABLE, SHUTTING_DOWN, BLOCK_NOT_LOCAL -> Status.UNAVAILABLE;
            case NO_SPACE -> Status.RESOURCE_EXHAUSTED;
            case STORAGE_FAILURE -> Status.INTERNAL;
        };
        if (e.code().kind() == ErrorCode.Kind.INTERNAL) {
            log.error("internal error", e);
        }
        Metadata trailers = new Metadata();
        trailers.put(ERROR_CODE, e.code().name());
        return status.withDescription(e.getMessage()).asRuntimeException(trailers);
    }

    /**
     * What a client raises for a failed call to {@code target}: the server's error code
     * when it sent one, else one derived from the status (an unreachable server is
     * {@code PEER_UNAVAILABLE}).
     */
    public static HeliotropeException toException(Throwable failure, String target) {
        Throwable cause = HeliotropeException.unwrap(failure);
        if (cause instanceof HeliotropeException h) {
            return h;
        }
        if (!(cause instanceof StatusRuntimeException e)) {
            return new HeliotropeException(ErrorCode.STORAGE_FAILURE, "request to " + target + " failed: " + cause, cause);
        }
        Status status = e.getStatus();
        String description = status.getDescription() == null ? status.getCode().name() : status.getDescription();
        String sent = e.getTrailers() == null ? null : e.getTrailers().get(ERROR_CODE);
        ErrorCode code = sent != null ? parse(sent) : switch (status.getCode()) {
            case NOT_FOUND -> ErrorCode.IMAGE_NOT_FOUND;
            case ALREADY_EXISTS -> ErrorCode.IMAGE_EXISTS;
            case FAILED_PRECONDITION -> ErrorCode.IMAGE_IN_USE;
            case INVALID_ARGUMENT -> ErrorCode.INVALID_ARGUMENT;
            case OUT_OF_RANGE -> ErrorCode.OUT_OF_RANGE;
            case UNAVAILABLE, DEADLINE_EXCEEDED -> ErrorCode.PEER_UNAVAILABLE;
            default -> ErrorCode.STORAGE_FAILURE;
        };
        if (sent == null && code == ErrorCode.PEER_UNAVAILABLE) {
            description = "cannot reach " + target + " (" + description + ")";
        }
        return new HeliotropeException(code, description, e);
    }

    private static ErrorCode parse(String name) {
        try {
            return ErrorCode.valueOf(name);
        } catch (IllegalArgumentException e) {
            return ErrorCode.STORAGE_FAILURE;
        }
    }
}
