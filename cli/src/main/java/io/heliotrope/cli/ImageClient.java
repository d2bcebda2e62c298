package io.heliotrope.cli;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.CreateImageRequest;
import io.heliotrope.proto.storage.v1.DeleteImageRequest;
import io.heliotrope.proto.storage.v1.GetImageRequest;
import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListImagesRequest;
import io.heliotrope.proto.storage.v1.ResizeImageRequest;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** A site's image service as the CLI uses it; gRPC failures become {@link HeliotropeException}s here. */
final class ImageClient extends GrpcClient {
    ImageClient(String target) {
        super(target, "helio serve");
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

    private ImageServiceGrpc.ImageServiceBlockingStub blocking() {
        return ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
