package io.heliotrope.controller.cluster;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.ListVmRuntimesRequest;
import io.heliotrope.proto.storage.v1.ListVmRuntimesResponse;
import io.heliotrope.proto.storage.v1.SiteStatus;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;
import io.heliotrope.proto.storage.v1.VmRuntime;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A site's storage gRPC server on a port of its own that answers {@code GetSiteStatus} and its
 * VM runner's {@code ListVms} with what the test sets ({@code UNIMPLEMENTED} until then) and
 * counts the {@code GetSiteStatus} calls, which tell the view's rounds: a round starts only
 * once the one before has recorded every answer.
 */
final class TestingSite implements AutoCloseable {
    private static final int FLOW_CONTROL_WINDOW = 1 << 20;

    private final Semaphore calls = new Semaphore(0);
    private final Server server;
    private final int port;
    private volatile SiteStatus status;
    private volatile List<VmRuntime> vms;

    TestingSite(int port) throws IOException {
        server = GrpcServers.start(new InetSocketAddress("127.0.0.1", port), Runnable::run, FLOW_CONTROL_WINDOW, new ImageServiceGrpc.ImageServiceImplBase() {
            @Override
            public void getSiteStatus(GetSiteStatusRequest request, StreamObserver<SiteStatus> observer) {
                calls.release();
                SiteStatus answer = status;
                if (answer == null) {
                    super.getSiteStatus(request, observer);
                } else {
                    observer.onNext(answer);
                    observer.onCompleted();
                }
            }
        }, new VmRunnerServiceGrpc.VmRunnerServiceImplBase() {
            @Override
            public void listVms(ListVmRuntimesRequest request, StreamObserver<ListVmRuntimesResponse> observer) {
                List<VmRuntime> answer = vms;
                if (answer == null) {
                    super.listVms(request, observer);
                } else {
                    observer.onNext(ListVmRuntimesResponse.newBuilder().addAllVms(answer).build());
                    observer.onCompleted();
                }
            }
        });
        this.port = server.getPort();
    }

    /** A port nothing listens on: a site registered there is down. */
    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    int port() {
        return port;
    }

    String address() {
        return "127.0.0.1:" + port();
    }

    void answer(SiteStatus status) {
        this.status = status;
    }

    void runs(VmRuntime... vms) {
        this.vms = List.of(vms);
    }

    /**
     * Waits for three more calls: the second comes in a round that started after this method
     * did, the third once that round has recorded what every site answered.
     */
    void awaitRound() throws InterruptedException {
        calls.drainPermits();
        assertThat(calls.tryAcquire(3, 10, TimeUnit.SECONDS)).as("three calls from the cluster view to " + address()).isTrue();
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).as("site server stopped").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
