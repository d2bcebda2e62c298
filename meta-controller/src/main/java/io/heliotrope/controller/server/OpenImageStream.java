package io.heliotrope.controller.server;

import io.grpc.stub.ServerCallStreamObserver;
import io.heliotrope.controller.service.OpenedImage;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.controller.v1.OpenImageResponse;

import java.util.Iterator;
import java.util.concurrent.CompletableFuture;

/** One {@code OpenImage} stream: sends the messages while the client keeps up (gRPC's ready signal). */
final class OpenImageStream {
    private final ServerCallStreamObserver<OpenImageResponse> call;
    private Iterator<OpenImageResponse> messages;
    private boolean finished;

    OpenImageStream(ServerCallStreamObserver<OpenImageResponse> call) {
        this.call = call;
    }

    void start(CompletableFuture<OpenedImage> opened) {
        call.setOnCancelHandler(this::cancelled);
        call.setOnReadyHandler(this::pump);
        opened.whenComplete((image, failure) -> {
            if (failure != null) {
                fail(failure);
            } else {
                ready(new OpenImageMessages(image));
            }
        });
    }

    private void ready(Iterator<OpenImageResponse> built) {
        synchronized (this) {
            messages = built;
        }
        pump();
    }

    private synchronized void pump() {
        while (!finished && messages != null && call.isReady()) {
            if (!messages.hasNext()) {
                finished = true;
                call.onCompleted();
                return;
            }
            call.onNext(messages.next());
        }
    }

    private synchronized void fail(Throwable failure) {
        if (!finished) {
            finished = true;
            call.onError(GrpcErrors.toStatus(failure));
        }
    }

    private synchronized void cancelled() {
        finished = true;
    }
}
