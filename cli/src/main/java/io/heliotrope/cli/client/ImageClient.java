package io.heliotrope.cli.client;

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
public final class ImageClient extends GrpcClient {
    public ImageClient(Target target) {
        super(target);
    }

    /** The site this process runs. */
    public ImageClient(String address) {
        this(new Target(Target.Kind.SITE, address, ""));
    }

    public ImageInfo create(String name, long sizeBytes) {
        return call(() -> blocking().createImage(CreateImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).build()));
    }

    public ListImagesResponse list() {
        return call(() -> blocking().listImages(ListImagesRequest.getDefaultInstance()));
    }

    public ImageInfo get(String name) {
        return call(() -> blocking().getImage(GetImageRequest.newBuilder().setName(name).build()));
    }

    public void delete(String name) {
        call(() -> blocking().deleteImage(DeleteImageRequest.newBuilder().setName(name).build()));
    }

    public SiteStatus siteStatus() {
        return call(() -> blocking().getSiteStatus(GetSiteStatusRequest.getDefaultInstance()));
    }

    public ImageInfo resize(String name, long sizeBytes) {
        return call(() -> blocking().resizeImage(ResizeImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).build()));
    }

    private ImageServiceGrpc.ImageServiceBlockingStub blocking() {
        return ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
