package io.heliotrope.storage.server;

import com.google.protobuf.ByteString;
import io.grpc.stub.ServerCallStreamObserver;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.Extent;
import io.heliotrope.proto.storage.v1.ReadBlocksResponse;
import io.heliotrope.storage.admin.ImageManager;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * One {@code ReadBlocks} stream: the image's data extents, read in chunks of at most
 * {@value #CHUNK} bytes and sent while the client keeps up (gRPC's ready signal).
 * Holes and zero markers are never sent.
 */
final class ImageExport {
    private static final int CHUNK = 1 << 20;

    private final ImageManager manager;
    private final String name;
    private final ServerCallStreamObserver<ReadBlocksResponse> call;
    private final Deque<long[]> ranges = new ArrayDeque<>();
    private BlockDevice device;
    private boolean reading;
    private boolean finished;

    ImageExport(ImageManager manager, String name, ServerCallStreamObserver<ReadBlocksResponse> call) {
        this.manager = manager;
        this.name = name;
        this.call = call;
    }

    void start() {
        call.setOnCancelHandler(this::finish);
        call.setOnReadyHandler(this::pump);
        manager.open(name)
                .thenCompose(opened -> opened.blockStatus(0, opened.size())
                        .whenComplete((extents, failure) -> {
                            if (failure != null) {
                                opened.close();
                            }
                        })
                        .thenAccept(extents -> loaded(opened, extents)))
                .whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        fail(failure);
                    } else {
                        pump();
                    }
                });
    }

    /** The device and its data ranges become visible to {@link #pump} together, never one without the other. */
    private synchronized void loaded(BlockDevice opened, List<Extent> extents) {
        if (finished) {
            opened.close();
            return;
        }
        long offset = 0;
        for (Extent extent : extents) {
            if (!extent.zero()) {
                ranges.add(new long[] {offset, extent.length()});
            }
            offset += extent.length();
        }
        device = opened;
    }

    private synchronized void pump() {
        if (finished || reading || device == null || !call.isReady()) {
            return;
        }
        long[] range = ranges.peek();
        if (range == null) {
            call.onCompleted();
            finish();
            return;
        }
        int length = (int) Math.min(CHUNK, range[1]);
        long offset = range[0];
        range[0] += length;
        range[1] -= length;
        if (range[1] == 0) {
            ranges.poll();
        }
        reading = true;
        device.read(offset, length).whenComplete((data, failure) -> {
            if (failure != null) {
                fail(failure);
                return;
            }
            synchronized (this) {
                reading = false;
                try {
                    if (!finished) {
                        call.onNext(ReadBlocksResponse.newBuilder()
                                .addExtents(io.heliotrope.proto.storage.v1.Extent.newBuilder()
                                        .setOffset(offset)
                                        .setData(ByteString.copyFrom(data.nioBuffer())))
                                .build());
                    }
                } finally {
                    data.release();
                }
            }
            pump();
        });
    }

    private synchronized void fail(Throwable failure) {
        if (!finished) {
            call.onError(GrpcErrors.toStatus(failure));
            finish();
        }
    }

    private synchronized void finish() {
        finished = true;
        if (device != null) {
            device.close();
            device = null;
        }
    }
}
