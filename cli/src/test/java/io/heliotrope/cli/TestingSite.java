package io.heliotrope.cli;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListImagesRequest;
import io.heliotrope.proto.storage.v1.ListImagesResponse;
import io.heliotrope.proto.storage.v1.SiteStatus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** A standalone site's image service on a free loopback port, with canned answers for its listings. */
final class TestingSite extends ImageServiceGrpc.ImageServiceImplBase implements AutoCloseable {
    private final SiteStatus status;
    private final ListImagesResponse images;
    private final Server server;

    TestingSite(SiteStatus status, ListImagesResponse images) {
        this.status = status;
        this.images = images;
        try {
            this.server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(this).build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String target() {
        return "127.0.0.1:" + server.getPort();
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
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
