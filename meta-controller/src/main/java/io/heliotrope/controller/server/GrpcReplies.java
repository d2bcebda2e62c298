package io.heliotrope.controller.server;

import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/** How the controller's gRPC services answer a unary call: the domain's value as a proto, or its failure as a status through {@link GrpcErrors}. */
final class GrpcReplies {
    private GrpcReplies() {}

    /** Runs the call; a request it cannot even convert fails the same way as one the service refuses. */
    static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    static <T, R> void reply(Supplier<CompletableFuture<T>> request, Function<T, R> toProto, StreamObserver<R> observer) {
        call(request).whenComplete((value, failure) -> {
            if (failure != null) {
                observer.onError(GrpcErrors.toStatus(failure));
            } else {
                observer.onNext(toProto.apply(value));
                observer.onCompleted();
            }
        });
    }
}
