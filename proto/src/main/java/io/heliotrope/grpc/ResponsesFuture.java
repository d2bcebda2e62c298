package io.heliotrope.grpc;

import io.grpc.stub.StreamObserver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Every response of a server-streaming call, in order, as a future: pass it as the response
 * observer when starting the call. It completes when the call does.
 */
public final class ResponsesFuture<T> extends CompletableFuture<List<T>> implements StreamObserver<T> {
    private final List<T> received = new ArrayList<>();

    @Override
    public void onNext(T value) {
        received.add(value);
    }

    @Override
    public void onError(Throwable failure) {
        completeExceptionally(failure);
    }

    @Override
    public void onCompleted() {
        complete(received);
    }
}
