package io.heliotrope.grpc;

import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/** How our gRPC services answer a unary call: the domain call's value as a proto, or its failure as a status through {@link GrpcErrors}. */
public final class GrpcReplies {
    private GrpcReplies() {}

    /** Runs the call; a request it cannot even convert fails the same way as one the service refuses. */
    public static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    public static <T, R> void reply(Supplier<CompletableFuture<T>> request, Function<T, R> toProto, StreamObserver<R> observer) {
        reply(call(request), toProto, observer);
    }

    public static <T, R> void reply(CompletableFuture<T> future, Function<T, R> toProto, StreamObserver<R> observer) {
        future.whenComplete((value, failure) -> {
            if (failure != null) {
                observer.onError(GrpcErrors.toStatus(failure));
            } else {
                observer.onNext(toProto.apply(value));
                observer.onCompleted();
            }
        });
    }
}
