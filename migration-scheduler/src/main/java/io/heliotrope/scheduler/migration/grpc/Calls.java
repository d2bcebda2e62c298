package io.heliotrope.scheduler.migration.grpc;

import io.grpc.StatusRuntimeException;
import io.heliotrope.error.GrpcErrors;

import java.util.function.Supplier;

/** The driver's one translation of a gRPC failure into our error. */
final class Calls {
    private Calls() {}

    static <T> T call(String target, Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (StatusRuntimeException e) {
            throw GrpcErrors.toException(e, target);
        }
    }
}
