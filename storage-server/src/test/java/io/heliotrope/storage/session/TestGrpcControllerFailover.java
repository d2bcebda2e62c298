package io.heliotrope.storage.session;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.FlushRequest;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.LeaseRequest;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A site given several controllers: a call goes to the next one when the one in use does not answer, and only then. */
class TestGrpcControllerFailover {
    private final ExecutorService calls = Executors.newFixedThreadPool(4, task -> new Thread(task, "test-controllers-grpc"));
    private final List<Server> servers = new ArrayList<>();
    private final List<String> registeredAt = new CopyOnWriteArrayList<>();
    private final List<FlushHeader> flushes = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Server server : servers) {
            GrpcServers.shutdown(server);
        }
        calls.shutdownNow();
    }

    @Test
    void aCallTheControllerInUseDoesNotAnswerGoesToTheNextWhichCallsKeepUsing() throws Exception {
        String dead = dead();
        String live = start("live", Status.OK);
        try (GrpcController controller = new GrpcController("virginia", List.of(dead, live), Duration.ZERO, SiteTraits.DEFAULT)) {
            controller.register("127.0.0.1:7410", "127.0.0.1:10809");
            controller.register("127.0.0.1:7410", "127.0.0.1:10809");

            assertThat(registeredAt).containsExactly("live", "live");
            assertThat(controller.failovers()).isEqualTo(1);
        }
    }

    @Test
    void aFlushWhoseReplyWasLostGoesToTheNextControllerWithTheSameId() throws Exception {
        String lost = start("lost", Status.UNAVAILABLE.withDescription("the reply was lost"));
        String next = start("next", Status.OK);
        try (GrpcController controller = new GrpcController("virginia", List.of(lost, next), Duration.ZERO, SiteTraits.DEFAULT)) {
            long metaSeq = controller.flush("disk", 3, List.of(new BlockVersion(1, 7, BlockState.DATA)), "virginia", false);

            assertThat(metaSeq).isEqualTo(42);
            assertThat(flushes).hasSize(2);
            assertThat(flushes.get(0).getFlushId()).isNotEmpty().isEqualTo(flushes.get(1).getFlushId());
            assertThat(flushes.get(1).toBuilder().clearFlushId().build())
                    .isEqualTo(FlushHeader.newBuilder().setImage("disk").setSite("virginia").setEpoch(3).build());
        }
    }

    @Test
    void aControllerThatAnswersWithAnErrorIsNotLeft() throws Exception {
        String refusing = start("refusing", Status.OK);
        String other = start("other", Status.OK);
        try (GrpcController controller = new GrpcController("virginia", List.of(refusing, other), Duration.ZERO, SiteTraits.DEFAULT)) {
            assertThatThrownBy(() -> controller.renew("disk", 3))
                    .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STALE_LEASE))
                    .hasMessage("lease of refusing is stale");
            assertThat(controller.failovers()).isZero();
        }
    }

    @Test
    void noControllerAnsweringFailsNamingThemAll() throws Exception {
        String first = dead();
        String second = dead();
        try (GrpcController controller = new GrpcController("virginia", List.of(first, second), Duration.ZERO, SiteTraits.DEFAULT)) {
            assertThatThrownBy(() -> controller.register("127.0.0.1:7410", "127.0.0.1:10809"))
                    .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                    .hasMessageStartingWith("no controller answered (" + first + ", " + second + "); the last: cannot reach controller at " + second);
        }
    }

    /** The address of a controller that is gone: nothing listens there any more. */
    private String dead() throws Exception {
        Server server = GrpcServers.start(new InetSocketAddress("127.0.0.1", 0), calls, new ControllerServiceGrpc.ControllerServiceImplBase() {});
        String target = "127.0.0.1:" + server.getPort();
        GrpcServers.shutdown(server);
        return target;
    }

    /** A controller that registers sites, answers flushes with {@code flushStatus} (metaSeq 42 when OK) and refuses renewals. */
    private String start(String name, Status flushStatus) throws IOException {
        Server server = GrpcServers.start(new InetSocketAddress("127.0.0.1", 0), calls, new ControllerServiceGrpc.ControllerServiceImplBase() {
            @Override
            public void registerSite(Site site, StreamObserver<Site> observer) {
                registeredAt.add(name);
                observer.onNext(site);
                observer.onCompleted();
            }

            @Override
            public void renewLease(LeaseRequest request, StreamObserver<Lease> observer) {
                observer.onError(GrpcErrors.toStatus(new HeliotropeException(ErrorCode.STALE_LEASE, "lease of " + name + " is stale")));
            }

            @Override
            public StreamObserver<FlushRequest> flush(StreamObserver<FlushResponse> observer) {
                return new StreamObserver<>() {
                    @Override
                    public void onNext(FlushRequest request) {
                        if (request.hasHeader()) {
                            flushes.add(request.getHeader());
                        }
                    }

                    @Override
                    public void onError(Throwable failure) {}

                    @Override
                    public void onCompleted() {
                        if (flushStatus.isOk()) {
                            observer.onNext(FlushResponse.newBuilder().setMetaSeq(42).build());
                            observer.onCompleted();
                        } else {
                            observer.onError(flushStatus.asRuntimeException());
                        }
                    }
                };
            }
        });
        servers.add(server);
        return "127.0.0.1:" + server.getPort();
    }
}
