package io.heliotrope.cli;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.CreateImageRequest;
import io.heliotrope.proto.storage.v1.DeleteImageRequest;
import io.heliotrope.proto.storage.v1.GetImageRequest;
import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListImagesRequest;
import io.heliotrope.proto.storage.v1.ReadBlocksRequest;
import io.heliotrope.proto.storage.v1.ReadBlocksResponse;
import io.heliotrope.proto.storage.v1.ResizeImageRequest;

import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** A site's image service as the CLI uses it; gRPC failures become {@link HeliotropeException}s here. */
final class ImageClient implements AutoCloseable {
    private static final long DEADLINE_SECONDS = 60;

    private final String target;
    private final ManagedChannel channel;

    ImageClient(String target) {
        this.target = target;
        this.channel = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
    }

    /** Creates each image that does not exist yet; existing ones are left as they are. */
    static void ensureImages(String target, List<ImageSpec> images) {
        try (ImageClient client = new ImageClient(target)) {
            for (ImageSpec image : images) {
                try {
                    client.create(image.name(), image.sizeBytes());
                } catch (HeliotropeException e) {
                    if (e.code() != ErrorCode.IMAGE_EXISTS) {
                        throw e;
                    }
                }
            }
        }
    }

    ImageInfo create(String name, long sizeBytes) {
        return call(() -> blocking().createImage(CreateImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).build()));
    }

    List<ImageInfo> list() {
        return call(() -> blocking().listImages(ListImagesRequest.getDefaultInstance()).getImagesList());
    }

    ImageInfo get(String name) {
        return call(() -> blocking().getImage(GetImageRequest.newBuilder().setName(name).build()));
    }

    void delete(String name) {
        call(() -> blocking().deleteImage(DeleteImageRequest.newBuilder().setName(name).build()));
    }

    ImageInfo resize(String name, long sizeBytes) {
        return call(() -> blocking().resizeImage(ResizeImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).build()));
    }

    /** Streams an image's data extents; iterate inside {@link #call}. */
    Iterator<ReadBlocksResponse> readBlocks(String name) {
        return ImageServiceGrpc.newBlockingStub(channel).readBlocks(ReadBlocksRequest.newBuilder().setName(name).build());
    }

    ImageServiceGrpc.ImageServiceStub async() {
        return ImageServiceGrpc.newStub(channel);
    }

    <T> T call(Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (StatusRuntimeException e) {
            throw translate(e);
        }
    }

    HeliotropeException translate(Throwable failure) {
        HeliotropeException e = GrpcErrors.toException(failure, target);
        if (e.code() == ErrorCode.PEER_UNAVAILABLE && e.getCause() instanceof StatusRuntimeException) {
            return new HeliotropeException(e.code(), e.getMessage() + "; is `helio serve` running there?", e);
        }
        return e;
    }

    private ImageServiceGrpc.ImageServiceBlockingStub blocking() {
        return ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        try {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
