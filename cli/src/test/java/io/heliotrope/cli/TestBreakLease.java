package io.heliotrope.cli;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.heliotrope.controller.server.ControllerConfig;
import io.heliotrope.controller.server.ControllerServer;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.OpenImageRequest;
import io.heliotrope.proto.controller.v1.OpenMode;
import io.heliotrope.proto.controller.v1.Site;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code helio image break-lease} against a real controller: an operator names the lease of a dead site, and only that one breaks. */
class TestBreakLease {
    private EmbeddedZooKeeper zooKeeper;
    private ControllerServer server;
    private ManagedChannel channel;
    private ControllerServiceGrpc.ControllerServiceBlockingStub controller;

    @BeforeEach
    void start(@TempDir Path directory) throws IOException {
        zooKeeper = EmbeddedZooKeeper.start(directory, 0);
        server = ControllerServer.start(ControllerConfig.of(zooKeeper.connectString(), 0, 0));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.grpcPort(), InsecureChannelCredentials.create()).build();
        controller = ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        controller.registerSite(Site.newBuilder().setName("virginia").build());
        controller.registerSite(Site.newBuilder().setName("taiwan").build());
        controller.createImage(CreateImageRequest.newBuilder().setName("demo").setSizeBytes(1 << 20).build());
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.close();
        zooKeeper.close();
    }

    @Test
    void theLeaseNamedIsBrokenAndTheNextOpenTakesANewEpoch() {
        assertThat(helio("image", "break-lease", "demo")).isEqualTo(new HelioRun(1, "",
                "helio: nobody holds the write lease of demo (epoch 0); nothing to break\n"));
        openForWrite("virginia");
        openForWrite("virginia");

        assertThat(helio("image", "break-lease", "demo")).isEqualTo(new HelioRun(1, "", "helio: the write lease of demo is held by virginia "
                + "at epoch 2; to break it, name it: helio image break-lease demo --holder virginia --epoch 2\n"));
        assertThat(helio("image", "break-lease", "demo", "--holder", "virginia", "--epoch", "1")).isEqualTo(new HelioRun(1, "",
                "helio: the write lease of demo is held by virginia at epoch 2, not by virginia at epoch 1; nothing broken\n"));
        assertThat(helio("image", "break-lease", "demo", "--holder", "taiwan", "--epoch", "2")).isEqualTo(new HelioRun(1, "",
                "helio: the write lease of demo is held by virginia at epoch 2, not by taiwan at epoch 2; nothing broken\n"));
        assertThat(lease().getExpiresEpochMillis()).isGreaterThan(System.currentTimeMillis());

        assertThat(helio("image", "break-lease", "demo", "--holder", "virginia", "--epoch", "2")).isEqualTo(new HelioRun(0,
                "broke the write lease of demo held by virginia at epoch 2; the next write open takes epoch 3\n", ""));
        assertThat(lease().getExpiresEpochMillis()).isLessThanOrEqualTo(System.currentTimeMillis());
        assertThat(openForWrite("taiwan")).satisfies(lease -> {
            assertThat(lease.getHolder()).isEqualTo("taiwan");
            assertThat(lease.getEpoch()).isEqualTo(3);
        });
    }

    @Test
    void aStandaloneSiteHasNoLeaseToBreak() {
        assertThat(HelioRun.of("image", "break-lease", "demo", "--server", "127.0.0.1:1")).isEqualTo(new HelioRun(1, "",
                "helio: 'image break-lease': the site at 127.0.0.1:1 (from --server) keeps no write leases; a controller does\n"));
    }

    private Lease openForWrite(String site) {
        return controller.openImage(OpenImageRequest.newBuilder().setImage("demo").setSite(site).setMode(OpenMode.OPEN_MODE_WRITE).build())
                .next().getLease();
    }

    private Lease lease() {
        return controller.getLease(GetImageRequest.newBuilder().setName("demo").build());
    }

    private HelioRun helio(String... args) {
        String[] withController = Arrays.copyOf(args, args.length + 2);
        withController[args.length] = "--controller";
        withController[args.length + 1] = "127.0.0.1:" + server.grpcPort();
        return HelioRun.of(withController);
    }
}
