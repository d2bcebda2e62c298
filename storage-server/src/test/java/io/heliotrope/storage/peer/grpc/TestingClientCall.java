package io.heliotrope.storage.peer.grpc;

import io.grpc.stub.ClientCallStreamObserver;

import java.util.ArrayList;
import java.util.List;

/** The client side of a call, as a caller sees it: takes {@code ready} more messages, and records them. */
final class TestingClientCall extends ClientCallStreamObserver<Integer> {
    final List<Integer> sent = new ArrayList<>();
    int ready;
    boolean halfClosed;
    Runnable onReady;

    @Override
    public boolean isReady() {
        return ready > 0;
    }

    @Override
    public void onNext(Integer value) {
        ready--;
        sent.add(value);
    }

    @Override
    public void onCompleted() {
        halfClosed = true;
    }

    @Override
    public void setOnReadyHandler(Runnable onReady) {
        this.onReady = onReady;
    }

    @Override
    public void onError(Throwable failure) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void request(int count) {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public void setMessageCompression(boolean enable) {}
}
