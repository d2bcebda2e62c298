package io.heliotrope.storage.peer.grpc;

import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.storage.heat.HeatLog;
import io.heliotrope.storage.heat.HeatService;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerService;
import io.heliotrope.storage.peer.PushPolicy;
import io.heliotrope.storage.peer.TestingAdmissions;
import io.heliotrope.storage.peer.SiteDirectory;
import io.heliotrope.storage.propagation.PropagationConfig;
import io.heliotrope.storage.propagation.PropagationManager;
import io.heliotrope.storage.propagation.PropagationMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/** A site's peer service on 127.0.0.1, over a memory store, as a site would run it; it answers heat from {@link #heats}. */
final class TestingPeerSite implements AutoCloseable {
    final MemoryBlockStore store = new MemoryBlockStore();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final HeatLog heats = new HeatLog(Clock.systemUTC());
    private static final int STORE_THREADS = 2;

    private final ExecutorService storeCalls;
    private final ScheduledExecutorService pushSteps;
    private final PropagationManager propagation;
    private final CountDownLatch release = new CountDownLatch(1);
    private final ExecutorService grpcCalls;
    private final Server server;

    TestingPeerSite(String name, SiteDirectory directory) throws IOException {
        this(name, directory, null);
    }

    /** A site whose calls pass {@code interceptor} first; none for a null one. */
    TestingPeerSite(String name, SiteDirectory directory, ServerInterceptor interceptor) throws IOException {
        storeCalls = BoundedExecutors.fixed(name + "-store", STORE_THREADS, 1024);
        grpcCalls = BoundedExecutors.fixed(name + "-grpc", 2, 1024);
        pushSteps = BoundedExecutors.scheduled(name + "-push", 1, 64);
        PeerService service = new PeerService(store, store.view(), PushPolicy.NEWER, TestingAdmissions.TRUSTING, storeCalls, storeCalls);
        // Pushes nothing: no image opens here.
        propagation = new PropagationManager(name, store, new AbstractTestingPeers() {}, pushSteps, storeCalls, Clock.systemUTC(), new SplittableRandom(1),
                PropagationConfig.DEFAULT, new PropagationMetrics(registry));
        PeerGrpcService peers = new PeerGrpcService(service, new HeatService(heats, propagation, registry), directory, new PeerMetrics(registry));
        server = GrpcServers.start(new InetSocketAddress("127.0.0.1", 0), grpcCalls, PeerGrpcService.FLOW_CONTROL_WINDOW,
                interceptor == null ? peers : () -> ServerInterceptors.intercept(peers, interceptor));
    }

    /** A site whose store calls wait until it closes: its peer service takes requests and never answers them. */
    static TestingPeerSite stuck(String name, SiteDirectory directory) throws IOException {
        TestingPeerSite site = new TestingPeerSite(name, directory);
        for (int i = 0; i < STORE_THREADS; i++) {
            site.storeCalls.execute(site::awaitRelease);
        }
        return site;
    }

    private void awaitRelease() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    String address() {
        return "127.0.0.1:" + server.getPort();
    }

    @Override
    public void close() {
        release.countDown();
        try {
            GrpcServers.shutdown(server);
            propagation.close();
            BoundedExecutors.shutdown(pushSteps, Duration.ofSeconds(5));
            BoundedExecutors.shutdown(grpcCalls, Duration.ofSeconds(5));
            BoundedExecutors.shutdown(storeCalls, Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping a site", e);
        } finally {
            store.close();
        }
    }
}
