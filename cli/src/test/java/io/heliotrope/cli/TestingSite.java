package io.heliotrope.cli;

import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListImagesRequest;
import io.heliotrope.proto.storage.v1.ListImagesResponse;
import io.heliotrope.proto.storage.v1.SiteStatus;

/** A standalone site's image service on a free loopback port, with canned answers for its listings. */
final class TestingSite extends ImageServiceGrpc.ImageServiceImplBase implements AutoCloseable {
    private final SiteStatus status;
    private final ListImagesResponse images;
    private final LoopbackServer server;

    TestingSite(SiteStatus status, ListImagesResponse images) {
        this.status = status;
        this.images = images;
        this.server = new LoopbackServer(this);
    }

    String target() {
        return server.target();
    }

    @Override
    public void getSiteStatus(GetSiteStatusRequest request, StreamObserver<SiteStatus> observer) {
        observer.onNext(status);
        observer.onCompleted();
    }

    @Override
    public void listImages(ListImagesRequest request, StreamObserver<ListImagesResponse> observer) {
        observer.onNext(images);
        observer.onCompleted();
    }

    @Override
    public void close() {
        server.close();
    }
}
