package io.heliotrope.storage.peer.grpc;

import io.grpc.stub.ServerCallStreamObserver;

import java.util.ArrayList;
import java.util.List;

/** The server side of a call, as a service sees it: records what it sends and asks for; the test says when the client takes more. */
final class TestingServerCall<R> extends ServerCallStreamObserver<R> {
    final List<R> sent = new ArrayList<>();
    int requested;
    boolean completed;
    Throwable failure;
    private boolean ready = true;
    private Runnable onReady;

    void ready(boolean ready) {
        this.ready = ready;
        if (ready) {
            onReady.run();
        }
    }

    @Override
    public boolean isReady() {
        return ready;
    }

    @Override
    public void setOnReadyHandler(Runnable onReady) {
        this.onReady = onReady;
    }

    @Override
    public void request(int count) {
        requested += count;
    }

    @Override
    public void disableAutoRequest() {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public void setOnCancelHandler(Runnable onCancel) {}

    @Override
    public void setCompression(String compression) {}

    @Override
    public void setMessageCompression(boolean enable) {}

    @Override
    public void onNext(R value) {
        sent.add(value);
    }

    @Override
    public void onError(Throwable failure) {
        this.failure = failure;
    }

    @Override
    public void onCompleted() {
        completed = true;
    }
}
