package io.heliotrope.it;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.PeerTraffic;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/** GetSiteStatus of two {@code helio serve} sites on a controller (a real 3-node ensemble), as qemu-io writes at one and reads at the other. */
class SiteStatusIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final long MIB = 1 << 20;

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    private static TestingSite site(String name, String... options) {
        List<String> args = new ArrayList<>(List.of("--site", name, "--controller", cluster.controller(0).target()));
        args.addAll(List.of(options));
        return TestingSite.start(args.toArray(String[]::new));
    }

    private static SiteStatus status(TestingSite site) {
        ManagedChannel channel = Grpc.newChannelBuilder(site.grpcTarget(), InsecureChannelCredentials.create()).build();
        try {
            return ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).getSiteStatus(GetSiteStatusRequest.getDefaultInstance());
        } finally {
            channel.shutdownNow();
        }
    }

    private static Optional<SiteImageStatus> image(TestingSite site, String name) {
        return status(site).getImagesList().stream().filter(image -> image.getName().equals(name)).findFirst();
    }

    @Test
    void showsWritesNotFlushedConnectionsAndTheBlocksFetchedFromAPeer() throws Exception {
        try (TestingSite a = site("status-a", "--checkpoint-interval", "1h"); TestingSite b = site("status-b")) {
            helio("image", "create", "watched", "--size", "16M", "--controller", cluster.controller(0).target()).assertSuccess();
            ControllerClient controller = cluster.client(0);
            String identity = controller.status("watched").getConfig().getUuid();

            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("qemu-io", "-f", "raw",
                    "-c", "write -P 0x5a 0 1M", "-c", "flush", "-c", "sleep 600000", a.nbdUri("watched")))) {
                Await.until("site a shows the write, not flushed, on one connection", TIMEOUT, () -> image(a, "watched")
                        .filter(image -> image.getAllocatedBlocks() == 256 && image.getDirtyBlocks() == 256 && image.getConnections() == 1).isPresent());
                assertThat(writer.isAlive()).as("qemu-io holds the image open; output:%n%s", writer.output()).isTrue();
            }
            Await.until("site a's close reached the controller", TIMEOUT, () -> controller.status("watched").getLease().getHolder().isEmpty());
            Await.until("site a shows the blocks flushed and the image closed", TIMEOUT, () -> image(a, "watched")
                    .filter(image -> image.getDirtyBlocks() == 0 && image.getConnections() == 0).isPresent());
            assertThat(image(a, "watched").orElseThrow().getUuid()).isEqualTo(identity);

            ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 1M", b.nbdUri("watched"));

            Await.until("site b shows the blocks it fetched", TIMEOUT, () -> image(b, "watched")
                    .filter(image -> image.getAllocatedBlocks() == 256).isPresent());
            SiteStatus atB = status(b);
            assertThat(atB.getSite()).isEqualTo("status-b");
            assertThat(image(b, "watched").orElseThrow().getFetchedBytes()).isEqualTo(MIB);
            assertThat(atB.getPeersList()).containsExactly(PeerTraffic.newBuilder().setPeer("status-a").setFetchedBytes(MIB).build());
            assertThat(status(a).getPeersList()).isEmpty();
        }
    }

    @Test
    void showsTheBlocksWaitingToBePushedUntilTheyArePushed() throws Exception {
        try (TestingSite a = site("push-a"); TestingSite b = site("push-b")) {
            // Every block written goes to push-b (S = 0), at 256 KiB/s: 1 MiB takes four seconds.
            helio("image", "create", "pushed", "--size", "16M", "--s", "0", "--transitions", "push-a:push-b=1", "--bandwidth", "256K",
                    "--controller", cluster.controller(0).target()).assertSuccess();

            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("qemu-io", "-f", "raw",
                    "-c", "write -P 0x33 0 1M", "-c", "flush", "-c", "sleep 600000", a.nbdUri("pushed")))) {
                Await.until("push-a shows blocks waiting to be pushed", TIMEOUT, () -> image(a, "pushed")
                        .filter(image -> image.getQueuedBlocks() > 0 && image.getOldestQueuedMillis() > 0).isPresent());
                Await.until("push-a pushed every block", TIMEOUT, () -> image(a, "pushed")
                        .filter(image -> image.getQueuedBlocks() == 0 && image.getOldestQueuedMillis() == 0 && image.getPushedBytes() == MIB).isPresent());
                assertThat(status(a).getPeersList()).containsExactly(PeerTraffic.newBuilder().setPeer("push-b").setPushedBytes(MIB).build());
                Await.until("push-b stores every block pushed", TIMEOUT, () -> image(b, "pushed")
                        .filter(image -> image.getAllocatedBlocks() == MIB / 4096).isPresent());
                assertThat(writer.isAlive()).as("qemu-io holds the image open; output:%n%s", writer.output()).isTrue();
            }
        }
    }
}
