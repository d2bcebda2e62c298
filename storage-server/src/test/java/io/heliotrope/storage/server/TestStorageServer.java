package io.heliotrope.storage.server;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.heliotrope.proto.storage.v1.CreateImageRequest;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListImagesRequest;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestStorageServer {
    @Test
    void reportsItsStatusOverGrpc() throws InterruptedException {
        SiteConfig config = SiteConfigLoader.load(null, Map.of("site", "lone", "store", "memory", "nbdPort", 0, "grpcPort", 0, "metricsPort", 0));
        long before = System.currentTimeMillis();
        try (StorageServer site = new StorageServer(config)) {
            ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", site.grpcPort(), InsecureChannelCredentials.create()).build();
            try {
                ImageServiceGrpc.ImageServiceBlockingStub images = ImageServiceGrpc.newBlockingStub(channel);
                images.createImage(CreateImageRequest.newBuilder().setName("disk").setSizeBytes(1 << 20).build());

                SiteStatus status = images.getSiteStatus(GetSiteStatusRequest.getDefaultInstance());

                assertThat(status.getSite()).isEqualTo("lone");
                assertThat(status.getStartedEpochMillis()).isBetween(before, System.currentTimeMillis());
                assertThat(status.getImagesList()).containsExactly(SiteImageStatus.newBuilder().setName("disk").build());
                assertThat(status.getPeersList()).isEmpty();
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void listensOnlyOnItsBindAddress() throws IOException, InterruptedException {
        SiteConfig config = SiteConfigLoader.load(null, Map.of("store", "memory", "nbdPort", 0, "grpcPort", 0, "metricsPort", 0));
        try (StorageServer site = new StorageServer(config)) {
            ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", site.grpcPort(), InsecureChannelCredentials.create()).build();
            try {
                assertThat(ImageServiceGrpc.newBlockingStub(channel).listImages(ListImagesRequest.getDefaultInstance()).getImagesList()).isEmpty();
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            new Socket("127.0.0.1", site.nbdAddress().getPort()).close();
            new Socket("127.0.0.1", site.metricsPort()).close();
            for (int port : new int[] {site.nbdAddress().getPort(), site.grpcPort(), site.metricsPort()}) {
                // Every 127/8 address reaches this host on Linux: only a server bound to all of them would answer here.
                assertThatThrownBy(() -> new Socket("127.0.0.2", port).close()).isInstanceOf(ConnectException.class);
            }
        }
    }
}
