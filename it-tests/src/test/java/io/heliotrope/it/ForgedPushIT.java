package io.heliotrope.it;

import com.google.protobuf.ByteString;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.storage.v1.PeerImage;
import io.heliotrope.proto.storage.v1.PeerServiceGrpc;
import io.heliotrope.proto.storage.v1.PushRequest;
import io.heliotrope.proto.storage.v1.PushResponse;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Peers cannot forge data (issue 27 item 5, first part): pushes sent straight to a site's
 * peer service, for an image it has no copy of, naming an unknown image, a real image's name
 * with another identity, or the real identity with a wrong size, make no copy and hold no
 * block there; each is counted by its reason. The site serves on: a sync write at another
 * site, whose first push makes the copy there as the catalog has it, and a read of it there.
 * While the controller is down, a push for an image the site has no copy of fails as
 * retryable, and the retry is taken once the controller is back.
 */
class ForgedPushIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final long SIZE = 16 << 20;

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    @Test
    void forgedPushesMakeNoCopyAndAreCountedAndTheSiteServesOn() throws Exception {
        String target = cluster.controller(0).target();
        try (TestingSite b = TestingSite.start("--site", "site-b", "--controller", target)) {
            helio("image", "create", "real", "--size", "16M", "--mode", "sync", "--controller", target).assertSuccess();
            String identity = cluster.client(0).status("real").getConfig().getUuid();
            ManagedChannel channel = Grpc.newChannelBuilder(b.grpcTarget(), InsecureChannelCredentials.create()).build();
            try {
                assertThat(push(channel, image(UUID.randomUUID().toString(), "forged", 1L << 40))).as("an unknown image").containsExactly(false);
                assertThat(push(channel, image(UUID.randomUUID().toString(), "real", SIZE))).as("the real name, another identity").containsExactly(false);
                assertThat(push(channel, image(identity, "real", 1L << 40))).as("the real image, a wrong size").containsExactly(false);
            } finally {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }

            assertThat(b.image("ls").assertSuccess().stdout()).as("site-b's copies").doesNotContain("forged").doesNotContain("real");
            assertThat(b.metric("heliotrope_peer_refused_total{reason=\"unknown_image\"}")).isEqualTo(1.0);
            assertThat(b.metric("heliotrope_peer_refused_total{reason=\"identity\"}")).isEqualTo(1.0);
            assertThat(b.metric("heliotrope_peer_refused_total{reason=\"size\"}")).isEqualTo(1.0);
            assertThat(b.log()).contains("forged: a peer's push or fence refused, no copy made here: the controller's catalog has no image of this name")
                    .contains("real: a peer's push or fence refused, no copy made here: the peer named image");

            try (TestingSite a = TestingSite.start("--site", "site-a", "--controller", target)) {
                // Sync: the write is acknowledged once site-b holds it, so its first push must make site-b's copy.
                ok("qemu-io", "-f", "raw", "-c", "write -P 0x5a 0 4M", a.nbdUri("real"));
                cluster.awaitClosed("real", TIMEOUT);
                assertThat(b.log()).contains("real: copy of image " + identity + " made for a peer, " + SIZE + " bytes as the controller's catalog has it");
                a.kill9();
                // Read from site-b's own copies: site-a is gone.
                assertThat(ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 4M", b.nbdUri("real")).stdout())
                        .contains("read 4194304/4194304 bytes").doesNotContain("Pattern verification failed");
            }
            assertThat(b.metric("heliotrope_peer_refused_total{reason=\"identity\"}") + b.metric("heliotrope_peer_refused_total{reason=\"size\"}")
                    + b.metric("heliotrope_peer_refused_total{reason=\"unknown_image\"}") + b.metric("heliotrope_peer_refused_total{reason=\"catalog_unavailable\"}"))
                    .as("refusals after the forged pushes").isEqualTo(3.0);
        }
    }

    @Test
    void aPushWhileTheControllerIsDownIsRefusedAsRetryableAndTakenOnceItIsBack() throws Exception {
        String target = cluster.controller(0).target();
        try (TestingSite b = TestingSite.start("--site", "site-b", "--controller", target)) {
            helio("image", "create", "offline", "--size", "16M", "--controller", target).assertSuccess();
            PeerImage offline = image(cluster.client(0).status("offline").getConfig().getUuid(), "offline", SIZE);
            ManagedChannel channel = Grpc.newChannelBuilder(b.grpcTarget(), InsecureChannelCredentials.create()).build();
            try {
                cluster.controller(0).kill9();
                assertThatThrownBy(() -> push(channel, offline)).as("a push the catalog cannot confirm")
                        .rootCause().isInstanceOf(StatusRuntimeException.class)
                        .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
                assertThat(b.image("ls").assertSuccess().stdout()).as("site-b's copies").doesNotContain("offline");
                assertThat(b.metric("heliotrope_peer_refused_total{reason=\"catalog_unavailable\"}")).isEqualTo(1.0);
                assertThat(b.log()).contains("offline: a peer's push or fence refused, no copy made here: the controller's catalog could not be asked");

                cluster.controller(0).restart();
                // The sender's retry: taken once the catalog answers again.
                Await.until("a push taken with the controller back", TIMEOUT, () -> {
                    try {
                        return push(channel, offline).equals(List.of(true));
                    } catch (CompletionException e) {
                        return false;
                    }
                });
                assertThat(b.image("ls").assertSuccess().stdout()).as("site-b's copies").contains("offline");
            } finally {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }

    private static PeerImage image(String identity, String name, long sizeBytes) {
        return PeerImage.newBuilder().setIdentity(identity).setName(name).setSizeBytes(sizeBytes).build();
    }

    /** One push of one block with data, of a late epoch, answered with whether the site stored it. */
    private static List<Boolean> push(ManagedChannel channel, PeerImage image) {
        CompletableFuture<PushResponse> answer = new CompletableFuture<>();
        StreamObserver<PushRequest> requests = PeerServiceGrpc.newStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).push(new StreamObserver<>() {
            @Override
            public void onNext(PushResponse response) {
                answer.complete(response);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                answer.completeExceptionally(new AssertionError("the push stream ended without an answer"));
            }
        });
        requests.onNext(PushRequest.newBuilder().setImage(image).addBlocks(0).addVersions(Version.compose(1_000, 1))
                .addData(ByteString.copyFrom(new byte[4096])).build());
        requests.onCompleted();
        return answer.orTimeout(30, TimeUnit.SECONDS).join().getStoredList();
    }
}
