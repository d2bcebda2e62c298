package io.heliotrope.storage.server;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.proto.storage.v1.Extent;
import io.heliotrope.proto.storage.v1.WriteBlocksRequest;
import io.heliotrope.proto.storage.v1.WriteBlocksResponse;
import io.heliotrope.storage.admin.ImageManager;
import io.netty.buffer.Unpooled;

import java.util.concurrent.CompletableFuture;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/**
 * One {@code WriteBlocks} stream: the first message names the image, which is opened
 * like an NBD connection; extents are written in order, one message at a time (the
 * next is requested only when the last is stored), then flushed at the end.
 */
final class ImageImport implements StreamObserver<WriteBlocksRequest> {
    private final ImageManager manager;
    private final ServerCallStreamObserver<WriteBlocksResponse> call;
    private CompletableFuture<BlockDevice> device;
    private CompletableFuture<Void> written = CompletableFuture.completedFuture(null);
    private long blocks;
    private boolean failed;

    ImageImport(ImageManager manager, ServerCallStreamObserver<WriteBlocksResponse> call) {
        this.manager = manager;
        this.call = call;
        call.disableAutoRequest();
        call.request(1);
    }

    @Override
    public synchronized void onNext(WriteBlocksRequest request) {
        if (failed) {
            return;
        }
        if (device == null) {
            if (request.getName().isEmpty()) {
                fail(new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "the first WriteBlocks message must name the image"));
                return;
            }
            device = manager.open(request.getName());
        }
        written = device.thenCompose(opened -> {
            CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
            for (Extent extent : request.getExtentsList()) {
                check(opened, extent);
                blocks += extent.getData().size() / BLOCK_SIZE;
                all = all.thenCompose(ignored -> opened.write(extent.getOffset(), Unpooled.wrappedBuffer(extent.getData().asReadOnlyByteBuffer()), false));
            }
            return all;
        });
        written.whenComplete((ignored, failure) -> {
            if (failure != null) {
                fail(failure);
            } else {
                call.request(1);
            }
        });
    }

    private static void check(BlockDevice device, Extent extent) {
        long offset = extent.getOffset();
        int length = extent.getData().size();
        if (offset % BLOCK_SIZE != 0 || length % BLOCK_SIZE != 0 || length == 0) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "extent at " + offset + " of " + length + " bytes is not a run of whole " + BLOCK_SIZE + "-byte blocks");
        }
        if (offset < 0 || offset + length > device.size()) {
            throw new HeliotropeException(ErrorCode.OUT_OF_RANGE,
                    "extent at " + offset + " of " + length + " bytes ends beyond the image (" + device.size() + " bytes)");
        }
    }

    @Override
    public synchronized void onError(Throwable t) {
        failed = true;
        closeDevice();
    }

    @Override
    public synchronized void onCompleted() {
        if (failed) {
            return;
        }
        if (device == null) {
            fail(new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "WriteBlocks stream named no image"));
            return;
        }
        written.thenCompose(ignored -> device.join().flush()).whenComplete((ignored, failure) -> {
            if (failure != null) {
                fail(failure);
                return;
            }
            call.onNext(WriteBlocksResponse.newBuilder().setBlocksWritten(blocks).build());
            call.onCompleted();
            closeDevice();
        });
    }

    private synchronized void fail(Throwable failure) {
        if (!failed) {
            failed = true;
            call.onError(GrpcErrors.toStatus(failure));
            closeDevice();
        }
    }

    private void closeDevice() {
        if (device != null) {
            device.thenAccept(BlockDevice::close);
        }
    }
}
