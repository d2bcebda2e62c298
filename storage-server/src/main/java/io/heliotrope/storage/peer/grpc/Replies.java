package io.heliotrope.storage.peer.grpc;

import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** How the site's unary gRPC services answer: the domain call's value as a proto, or its failure as our status. */
public final class Replies {
    private Replies() {}

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
