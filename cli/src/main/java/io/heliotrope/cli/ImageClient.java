package io.heliotrope.cli;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.CreateImageRequest;
import io.heliotrope.proto.storage.v1.DeleteImageRequest;
import io.heliotrope.proto.storage.v1.GetImageRequest;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListImagesRequest;
import io.heliotrope.proto.storage.v1.ListImagesResponse;
import io.heliotrope.proto.storage.v1.ResizeImageRequest;
import io.heliotrope.proto.storage.v1.SiteStatus;

import java.util.concurrent.TimeUnit;

/** A site's image service as the CLI uses it; gRPC failures become {@link HeliotropeException}s here. */
final class ImageClient extends GrpcClient {
    ImageClient(Target target) {
        super(target);
    }

    /** The site this process runs. */
    ImageClient(String address) {
        this(new Target(Target.Kind.SITE, address, ""));
    }

    ImageInfo create(String name, long sizeBytes) {
        return call(() -> blocking().createImage(CreateImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).build()));
    }

    ListImagesResponse list() {
        return call(() -> blocking().listImages(ListImagesRequest.getDefaultInstance()));
    }

    ImageInfo get(String name) {
        return call(() -> blocking().getImage(GetImageRequest.newBuilder().setName(name).build()));
    }

    void delete(String name) {
        call(() -> blocking().deleteImage(DeleteImageRequest.newBuilder().setName(name).build()));
    }

    SiteStatus siteStatus() {
        return call(() -> blocking().getSiteStatus(GetSiteStatusRequest.getDefaultInstance()));
    }

    ImageInfo resize(String name, long sizeBytes) {
        return call(() -> blocking().resizeImage(ResizeImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).build()));
    }

    private ImageServiceGrpc.ImageServiceBlockingStub blocking() {
        return ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
