package io.heliotrope.storage.peer.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The server side of a stream of batches: each request is answered by one response, in
 * order. The next request is read only once the last one's response is sent and the
 * client takes more (gRPC's ready signal), so a fast sender waits in HTTP/2 flow control
 * instead of piling batches up here, and a slow reader holds at most one answer.
 */
final class ServerBatches<Q, R> implements StreamObserver<Q> {
    private final ServerCallStreamObserver<R> call;
    private final Function<Q, CompletableFuture<R>> handler;
    private boolean working;
    private boolean waitingForReady;
    private boolean halfClosed;
    private boolean finished;

    /** Call from the service method, before it returns this observer to gRPC. */
    ServerBatches(StreamObserver<R> call, Function<Q, CompletableFuture<R>> handler) {
        this.call = (ServerCallStreamObserver<R>) call;
        this.handler = handler;
        this.call.disableAutoRequest();
        this.call.setOnReadyHandler(this::onReady);
        this.call.setOnCancelHandler(this::onCancel);
        this.call.request(1);
    }

    @Override
    public void onNext(Q request) {
        CompletableFuture<R> response;
        synchronized (this) {
            if (finished) {
                return;
            }
            working = true;
        }
        try {
            response = handler.apply(request);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        response.whenComplete(this::answered);
    }

    private synchronized void answered(R response, Throwable failure) {
        working = false;
        if (finished) {
            return;
        }
        if (failure != null) {
            finished = true;
            call.onError(GrpcErrors.toStatus(failure));
            return;
        }
        call.onNext(response);
        if (halfClosed) {
            finish();
        } else if (call.isReady()) {
            call.request(1);
        } else {
            waitingForReady = true;
        }
    }

    private synchronized void onReady() {
        if (waitingForReady && !finished) {
            waitingForReady = false;
            call.request(1);
        }
    }

    private synchronized void onCancel() {
        finished = true;
    }

    @Override
    public synchronized void onError(Throwable failure) {
        finished = true;
    }

    @Override
    public synchronized void onCompleted() {
        halfClosed = true;
        if (!working && !finished) {
            finish();
        }
    }

    private void finish() {
        finished = true;
        call.onCompleted();
    }
}
