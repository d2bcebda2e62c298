package io.heliotrope.storage.session;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.ReportRttRequest;
import io.heliotrope.proto.controller.v1.ReportRttResponse;
import io.heliotrope.proto.controller.v1.Site;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/** What a site tells the controller of itself: its traits at registration, its probe period with each RTT report. */
class TestGrpcControllerRegistration {
    private final List<Site> registered = new CopyOnWriteArrayList<>();
    private final List<ReportRttRequest> reports = new CopyOnWriteArrayList<>();
    private final ExecutorService calls = Executors.newFixedThreadPool(2, task -> new Thread(task, "test-controller-grpc"));
    private Server server;

    @BeforeEach
    void start() throws IOException {
        server = GrpcServers.start(new InetSocketAddress("127.0.0.1", 0), calls, new ControllerServiceGrpc.ControllerServiceImplBase() {
            @Override
            public void registerSite(Site site, StreamObserver<Site> observer) {
                registered.add(site);
                observer.onNext(site);
                observer.onCompleted();
            }

            @Override
            public void reportRtt(ReportRttRequest request, StreamObserver<ReportRttResponse> observer) {
                reports.add(request);
                observer.onNext(ReportRttResponse.getDefaultInstance());
                observer.onCompleted();
            }
        });
    }

    @AfterEach
    void stop() throws InterruptedException {
        GrpcServers.shutdown(server);
        calls.shutdownNow();
    }

    @Test
    void aSiteRegistersItsVmMemoryAndIntraSiteRoundTrip() {
        try (GrpcController controller = new GrpcController("virginia", List.of(target()), Duration.ZERO, new SiteTraits(64L << 30, Duration.ofNanos(250_000)))) {
            controller.register("127.0.0.1:7410", "127.0.0.1:10809");
        }
        try (GrpcController controller = new GrpcController("taiwan", target())) {
            controller.register("127.0.0.1:7411", "127.0.0.1:10810");
        }

        assertThat(registered).containsExactly(
                Site.newBuilder().setName("virginia").setGrpcAddress("127.0.0.1:7410").setNbdAddress("127.0.0.1:10809")
                        .setVmMemoryBytes(64L << 30).setIntraSiteRttMicros(250).build(),
                Site.newBuilder().setName("taiwan").setGrpcAddress("127.0.0.1:7411").setNbdAddress("127.0.0.1:10810")
                        .setIntraSiteRttMicros(1000).build());
    }

    @Test
    void eachRttReportSaysHowOftenTheSiteProbes() {
        try (GrpcController controller = new GrpcController("virginia", target())) {
            controller.reportRtt(Map.of("taiwan", Duration.ofMillis(75)), Duration.ofSeconds(10));
        }

        assertThat(reports).containsExactly(ReportRttRequest.newBuilder().setSite("virginia")
                .addPeers(PeerRtt.newBuilder().setPeer("taiwan").setRttMicros(75_000)).setProbePeriodMillis(10_000).build());
    }

    private String target() {
        return "127.0.0.1:" + server.getPort();
    }
}
