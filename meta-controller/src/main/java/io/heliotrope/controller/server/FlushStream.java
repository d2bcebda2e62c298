package io.heliotrope.controller.server;

import io.grpc.stub.StreamObserver;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.FlushRequest;
import io.heliotrope.proto.controller.v1.FlushResponse;

/**
 * One {@code Flush} stream: the header from the first message, entries from any number
 * of messages, then one commit when the client completes. gRPC calls these methods one
 * at a time.
 */
final class FlushStream implements StreamObserver<FlushRequest> {
    private final ControllerService service;
    private final StreamObserver<FlushResponse> observer;
    private final BlockEntries.Builder entries = BlockEntries.builder();
    private FlushHeader header;
    private boolean failed;

    FlushStream(ControllerService service, StreamObserver<FlushResponse> observer) {
        this.service = service;
        this.observer = observer;
    }

    @Override
    public void onNext(FlushRequest request) {
        if (failed) {
            return;
        }
        try {
            if (header == null && !request.hasHeader()) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "the first Flush message must carry the header");
            }
            if (header == null) {
                header = request.getHeader();
            }
            ControllerProtos.addEntries(entries, request.getEntries());
            if (entries.size() > ControllerService.MAX_FLUSH_ENTRIES) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + header.getImage() + "': a flush may carry at most "
                        + ControllerService.MAX_FLUSH_ENTRIES + " entries; flush more often");
            }
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    @Override
    public void onError(Throwable t) {
        failed = true;
    }

    @Override
    public void onCompleted() {
        if (failed) {
            return;
        }
        if (header == null) {
            fail(new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "the Flush stream carried no header"));
            return;
        }
        try {
            service.flush(ControllerProtos.flush(header, entries.build())).whenComplete((flushed, failure) -> {
                if (failure != null) {
                    observer.onError(GrpcErrors.toStatus(failure));
                } else {
                    observer.onNext(FlushResponse.newBuilder()
                            .setMetaSeq(flushed.metaSeq())
                            .setBlocks(flushed.blocks())
                            .setLease(ControllerProtos.toProto(header.getImage(), flushed.lease()))
                            .build());
                    observer.onCompleted();
                }
            });
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    private void fail(Throwable failure) {
        failed = true;
        observer.onError(GrpcErrors.toStatus(failure));
    }
}
