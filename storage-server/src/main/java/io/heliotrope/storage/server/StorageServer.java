package io.heliotrope.storage.server;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.server.BaseAllocation;
import io.heliotrope.nbd.server.NbdMetrics;
import io.heliotrope.nbd.server.NbdServer;
import io.heliotrope.nbd.server.NbdServerConfig;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.admin.ImageManager;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ImageSessions;
import io.heliotrope.storage.image.LocalSessions;
import io.heliotrope.storage.image.NbdExports;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.rocksdb.RocksBlockStore;
import io.heliotrope.storage.view.Controller;
import io.heliotrope.storage.view.ControllerSessions;
import io.heliotrope.storage.view.GrpcController;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A site: block store, NBD server, gRPC admin service and metrics endpoint. The
 * composition root of the storage server; components close in reverse order.
 */
public final class StorageServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StorageServer.class);

    private final Deque<AutoCloseable> components = new ArrayDeque<>();
    private final SiteConfig config;
    private final NbdServer nbd;
    private final Server grpc;
    private final MetricsHttpServer metrics;

    public StorageServer(SiteConfig config) {
        this.config = config;
        try {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            components.push(registry::close);
            BlockStore store = switch (config.store()) {
                case ROCKSDB -> new RocksBlockStore(config.dataDir(), config.blockCacheBytes(), config.controller() != null);
                case MEMORY -> new MemoryBlockStore(config.controller() != null);
            };
            components.push(store);
            StorageMetrics.bind(registry, store);

            ImageSessions sessions = new LocalSessions(store);
            ControllerSessions controlled = null;
            if (config.controller() != null) {
                Controller controller = new GrpcController(config.site(), config.controller());
                components.push(controller);
                // Two threads: a slow checkpoint must not hold up lease renewals.
                ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, new DefaultThreadFactory("view", true));
                components.push(() -> shutdown(scheduler));
                controlled = new ControllerSessions(config.site(), store, controller, scheduler, config.checkpointInterval(), config.checkpointBlocks());
                sessions = controlled;
                StorageMetrics.bindOrphans(registry, controlled);
            }
            // Closed before the controller: sessions that end at shutdown flush on it. Sessions and admin calls
            // run here even when block store calls run on the event loops.
            int storeThreads = config.storeThreads();
            ExecutorService executor = Executors.newFixedThreadPool(Math.max(1, storeThreads), new DefaultThreadFactory("store-io", true));
            components.push(() -> shutdown(executor));
            log.info("site {}: block store calls run {}", config.site(), storeThreads > 0 ? "on " + storeThreads + " threads" : "on the NBD event loops");
            ImageExports exports = new ImageExports(sessions, store, executor, storeThreads == 0, executor, ByteBufAllocator.DEFAULT);
            nbd = new NbdServer(new NbdServerConfig(new InetSocketAddress(config.bind(), config.nbdPort()), 0, config.nbdPoll()), new NbdExports(exports),
                    List.of(new BaseAllocation()), new NbdMetrics(registry));
            components.push(nbd);

            grpc = Grpc.newServerBuilderForPort(config.grpcPort(), InsecureServerCredentials.create())
                    .addService(new ImageGrpcService(new ImageManager(store, exports, executor, config.controller())))
                    .build()
                    .start();
            components.push(() -> shutdown(grpc));

            metrics = new MetricsHttpServer(new InetSocketAddress(config.bind(), config.metricsPort()), registry);
            components.push(metrics);

            if (controlled != null) {
                join(controlled, config);
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof HeliotropeException h ? h
                    : new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot start site " + config.site() + ": " + HeliotropeException.rootMessage(e), e);
        }
        log.info("site {}: NBD on {}, gRPC on port {}, metrics on port {}, store {}",
                config.site(), nbd.localAddress(), grpc.getPort(), metrics.port(), config.store().name().toLowerCase(java.util.Locale.ROOT));
    }

    /** Registers with the controller, flushes what an earlier run left, then keeps the catalog fresh. */
    private void join(ControllerSessions sessions, SiteConfig config) {
        log.info("site {}: joining controller {}", config.site(), config.controller());
        sessions.register(config.bind() + ":" + grpc.getPort(), config.bind() + ":" + nbd.localAddress().getPort());
        sessions.recover();
        components.push(sessions.startRefreshing(CATALOG_REFRESH)::run);
    }

    public SiteConfig config() {
        return config;
    }

    public InetSocketAddress nbdAddress() {
        return nbd.localAddress();
    }

    public int grpcPort() {
        return grpc.getPort();
    }

    public int metricsPort() {
        return metrics.port();
    }

    @Override
    public void close() {
        while (!components.isEmpty()) {
            try {
                components.pop().close();
            } catch (Exception e) {
                log.warn("site {}: error while stopping", config.site(), e);
            }
        }
    }

    private static final Duration CATALOG_REFRESH = Duration.ofSeconds(2);

    private static void shutdown(ExecutorService executor) throws InterruptedException {
        executor.shutdown();
        executor.awaitTermination(30, TimeUnit.SECONDS);
    }

    private static void shutdown(Server server) throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
            server.shutdownNow();
        }
    }
}
