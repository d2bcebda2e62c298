package io.heliotrope.storage.server;

import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.storage.v1.CreateImageRequest;
import io.heliotrope.proto.storage.v1.DeleteImageRequest;
import io.heliotrope.proto.storage.v1.DeleteImageResponse;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.GetImageRequest;
import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListImagesRequest;
import io.heliotrope.proto.storage.v1.ListImagesResponse;
import io.heliotrope.proto.storage.v1.ResizeImageRequest;
import io.heliotrope.proto.storage.v1.SiteStatus;
import io.heliotrope.storage.admin.ImageManager;
import io.heliotrope.storage.status.SiteStatusService;


import static io.heliotrope.grpc.GrpcReplies.reply;
import static java.util.Objects.requireNonNull;

/** {@code heliotrope.storage.v1.ImageService}: protos in, {@link ImageManager} or {@link SiteStatusService} calls, protos out. */
public final class ImageGrpcService extends ImageServiceGrpc.ImageServiceImplBase {
    private final ImageManager manager;
    private final SiteStatusService status;
    private final int nbdPort;

    /** @param nbdPort the port of this site's NBD server, which every {@link ImageInfo} names */
    public ImageGrpcService(ImageManager manager, SiteStatusService status, int nbdPort) {
        this.manager = requireNonNull(manager, "manager is null");
        this.status = requireNonNull(status, "status is null");
        this.nbdPort = nbdPort;
    }

    @Override
    public void createImage(CreateImageRequest request, StreamObserver<ImageInfo> observer) {
        reply(manager.create(request.getName(), request.getSizeBytes()), this::toProto, observer);
    }

    @Override
    public void listImages(ListImagesRequest request, StreamObserver<ListImagesResponse> observer) {
        reply(manager.list(), images -> ListImagesResponse.newBuilder()
                .addAllImages(images.stream().map(this::toProto).toList())
                .build(), observer);
    }

    @Override
    public void getImage(GetImageRequest request, StreamObserver<ImageInfo> observer) {
        reply(manager.get(request.getName()), this::toProto, observer);
    }

    @Override
    public void deleteImage(DeleteImageRequest request, StreamObserver<DeleteImageResponse> observer) {
        reply(manager.delete(request.getName()), ignored -> DeleteImageResponse.getDefaultInstance(), observer);
    }

    @Override
    public void resizeImage(ResizeImageRequest request, StreamObserver<ImageInfo> observer) {
        reply(manager.resize(request.getName(), request.getSizeBytes()), this::toProto, observer);
    }

    private ImageInfo toProto(ImageManager.ImageStatus status) {
        return ImageProtos.toProto(status, nbdPort);
    }

    @Override
    public void getSiteStatus(GetSiteStatusRequest request, StreamObserver<SiteStatus> observer) {
        reply(status.status(), ImageProtos::toProto, observer);
    }
}
