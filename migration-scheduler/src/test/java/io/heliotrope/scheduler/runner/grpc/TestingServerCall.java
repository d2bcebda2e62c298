package io.heliotrope.scheduler.runner.grpc;

import io.grpc.stub.ServerCallStreamObserver;

import java.util.ArrayList;
import java.util.List;

/** A server call's outbound side for a service under test: what it sent, and readiness the test controls. */
final class TestingServerCall<T> extends ServerCallStreamObserver<T> {
    final List<T> values = new ArrayList<>();
    Throwable failure;
    boolean completed;
    private boolean ready;
    private Runnable onReady = () -> { };

    TestingServerCall(boolean ready) {
        this.ready = ready;
    }

    /** Ready from now on; runs the service's on-ready handler, as gRPC does. */
    void becomeReady() {
        ready = true;
        onReady.run();
    }

    @Override
    public boolean isReady() {
        return ready;
    }

    @Override
    public void setOnReadyHandler(Runnable handler) {
        onReady = handler;
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public void setOnCancelHandler(Runnable handler) {
        // never cancelled
    }

    @Override
    public void setCompression(String compression) {
        // not compressed
    }

    @Override
    public void disableAutoInboundFlowControl() {
        // inbound messages are the test's calls
    }

    @Override
    public void request(int count) {
        // inbound messages are the test's calls
    }

    @Override
    public void setMessageCompression(boolean enable) {
        // not compressed
    }

    @Override
    public void onNext(T value) {
        values.add(value);
    }

    @Override
    public void onError(Throwable t) {
        failure = t;
    }

    @Override
    public void onCompleted() {
        completed = true;
    }
}
