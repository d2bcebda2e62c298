package io.heliotrope.storage.server;

import io.grpc.Server;
import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.nbd.server.BaseAllocation;
import io.heliotrope.nbd.server.NbdMetrics;
import io.heliotrope.nbd.server.NbdServer;
import io.heliotrope.nbd.server.NbdServerConfig;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.admin.ImageManager;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.image.ImageSessions;
import io.heliotrope.storage.image.LocalSessions;
import io.heliotrope.storage.image.Locality;
import io.heliotrope.storage.image.NbdExports;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.rocksdb.RocksBlockStore;
import io.heliotrope.storage.view.Controller;
import io.heliotrope.storage.view.ControllerSessions;
import io.heliotrope.storage.view.GrpcController;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.ViewCache;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * A site: block store, NBD server, gRPC admin service and metrics endpoint. The
 * composition root of the storage server; components close in reverse order. Block
 * store calls, session calls (which wait on the controller) and admin calls each run on
 * an executor of their own, so that none of them waits behind another kind.
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
            BlockStore store;
            ViewCache view;
            if (config.store() == SiteConfig.StoreKind.MEMORY) {
                MemoryBlockStore memory = new MemoryBlockStore();
                store = memory;
                view = memory.view();
            } else {
                RocksBlockStore rocks = new RocksBlockStore(config.dataDir(), config.blockCacheBytes());
                store = rocks;
                view = rocks.view();
            }
            components.push(store);
            StorageMetrics.bind(registry, store);

            // Sessions start and end here, leases are renewed and advanced and checkpoints sent: whatever may wait on the controller.
            // Closed after the NBD server and the block store calls, whose end ends sessions; renewals go on until then.
            ScheduledThreadPoolExecutor sessionCalls = BoundedExecutors.scheduled("site-sessions", SESSION_THREADS, QUEUED_PER_IMAGE);
            sessionCalls.setContinueExistingPeriodicTasksAfterShutdownPolicy(true);
            ImageSessions sessions = new LocalSessions(store);
            ControllerSessions controlled = null;
            if (config.controller() != null) {
                Controller controller = new GrpcController(config.site(), config.controller(), config.openWait());
                components.push(controller);
                controlled = new ControllerSessions(config.site(), store, view, controller, sessionCalls, config.checkpointInterval(), config.checkpointBlocks());
                sessions = controlled;
                StorageMetrics.bindOrphans(registry, controlled);
            }
            components.push(() -> BoundedExecutors.shutdown(sessionCalls, SHUTDOWN_PATIENCE));

            int storeThreads = config.storeThreads();
            Executor storeCalls = Runnable::run;
            if (storeThreads > 0) {
                ExecutorService pool = BoundedExecutors.fixed("site-io", storeThreads, QUEUED_PER_IMAGE);
                components.push(() -> BoundedExecutors.shutdown(pool, SHUTDOWN_PATIENCE));
                storeCalls = pool;
            }
            log.info("site {}: block store calls run {}", config.site(), storeThreads > 0 ? "on " + storeThreads + " threads" : "on the NBD event loops");
            ExecutorService flushes = BoundedExecutors.fixed("site-flush", FLUSH_THREADS, QUEUED_PER_IMAGE);
            components.push(() -> BoundedExecutors.shutdown(flushes, SHUTDOWN_PATIENCE));
            DefaultDeviceFactory devices = new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, storeCalls, storeThreads == 0, flushes,
                    ByteBufAllocator.DEFAULT);
            ImageExports exports = new ImageExports(sessions, devices, sessionCalls);
            nbd = new NbdServer(new NbdServerConfig(new InetSocketAddress(config.bind(), config.nbdPort()), 0, config.nbdPoll()), new NbdExports(exports),
                    List.of(new BaseAllocation(), new Locality()), new NbdMetrics(registry));
            components.push(nbd);

            ExecutorService adminCalls = BoundedExecutors.fixed("site-admin", ADMIN_THREADS, QUEUED_CALLS);
            components.push(() -> BoundedExecutors.shutdown(adminCalls, SHUTDOWN_PATIENCE));
            ExecutorService grpcCalls = BoundedExecutors.fixed("site-grpc", GRPC_THREADS, QUEUED_CALLS);
            components.push(() -> BoundedExecutors.shutdown(grpcCalls, SHUTDOWN_PATIENCE));
            grpc = GrpcServers.start(new InetSocketAddress(config.bind(), config.grpcPort()), grpcCalls,
                    new ImageGrpcService(new ImageManager(store, view, exports, adminCalls, config.controller())));
            components.push(() -> GrpcServers.shutdown(grpc));

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
        log.info("site {}: NBD on {}, gRPC on {}:{}, metrics on port {}, store {}",
                config.site(), nbd.localAddress(), config.bind(), grpc.getPort(), metrics.port(), config.store().name().toLowerCase(java.util.Locale.ROOT));
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
    /** Opens and closes of some images wait on the controller; renewals of the others must not queue behind them. */
    private static final int SESSION_THREADS = 8;
    private static final int ADMIN_THREADS = 2;
    /** FLUSHes take turns on the store's write lock, and one that waits shares the next one's sync: two threads keep one waiting. */
    private static final int FLUSH_THREADS = 2;
    /** gRPC callbacks only convert and hand calls on. */
    private static final int GRPC_THREADS = 4;
    /** Admin and gRPC calls beyond this many waiting are refused, for the client to try again. */
    private static final int QUEUED_CALLS = 1024;
    /**
     * Session and store queues hold a few tasks per image or connection (a renewal and a checkpoint for
     * each open image, one batch of calls for each connection with work outstanding): room for tens of thousands.
     */
    private static final int QUEUED_PER_IMAGE = 65_536;
    /** Sessions that end at shutdown flush to the controller meanwhile. */
    private static final Duration SHUTDOWN_PATIENCE = Duration.ofSeconds(30);
}
