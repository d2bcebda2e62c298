package io.heliotrope.grpc;

import io.grpc.stub.StreamObserver;

import java.util.concurrent.CompletableFuture;

/**
 * The one response of a client-streaming call, as a future: pass it as the response
 * observer when starting the call. A call that ends without a response fails it.
 */
public final class ResponseFuture<T> extends CompletableFuture<T> implements StreamObserver<T> {
    @Override
    public void onNext(T value) {
        complete(value);
    }

    @Override
    public void onError(Throwable failure) {
        completeExceptionally(failure);
    }

    @Override
    public void onCompleted() {
        completeExceptionally(new IllegalStateException("the call ended without a response"));
    }
}
