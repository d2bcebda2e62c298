package io.heliotrope.storage.server;

import io.grpc.Server;
import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.http.GetServer;
import io.heliotrope.http.Reply;
import io.heliotrope.nbd.server.BaseAllocation;
import io.heliotrope.nbd.server.NbdMetrics;
import io.heliotrope.nbd.server.NbdServer;
import io.heliotrope.nbd.server.NbdServerConfig;
import io.heliotrope.nbd.tls.NbdTls;
import io.heliotrope.nbd.tls.TlsDirectory;
import io.heliotrope.scheduler.runner.QemuRunner;
import io.heliotrope.scheduler.runner.RunnerConfig;
import io.heliotrope.scheduler.runner.grpc.VmRunnerGrpcService;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.scheduler.runner.SiteDisks;
import io.heliotrope.storage.handoff.Boosts;
import io.heliotrope.storage.handoff.GrpcHandoffPeers;
import io.heliotrope.storage.handoff.HandoffGrpcService;
import io.heliotrope.storage.handoff.SiteHandoffs;
import io.heliotrope.storage.heat.HeatLog;
import io.heliotrope.storage.heat.HeatService;
import io.heliotrope.storage.heat.Heats;
import io.heliotrope.storage.peer.grpc.GrpcHeatSource;
import io.heliotrope.storage.pull.PullConfig;
import io.heliotrope.storage.pull.PullManager;
import io.heliotrope.storage.pull.PullStatus;
import io.heliotrope.storage.view.Background;
import io.heliotrope.storage.image.mode.ModeDevices;
import io.heliotrope.storage.image.mode.ModeReplicators;
import io.heliotrope.storage.image.mode.SyncContext;
import io.heliotrope.storage.peer.CatalogCheck;
import io.heliotrope.storage.peer.PeerFetcher;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerMetrics.Traffic;
import io.heliotrope.storage.peer.PeerService;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.GroupSync;
import io.heliotrope.storage.peer.RegisteredSites;
import io.heliotrope.storage.peer.RttProber;
import io.heliotrope.storage.peer.SyncRecoverer;
import io.heliotrope.storage.peer.grpc.GrpcPeers;
import io.heliotrope.storage.peer.grpc.GrpcPeersConfig;
import io.heliotrope.storage.peer.grpc.PeerGrpcService;
import io.heliotrope.storage.propagation.PropagationConfig;
import io.heliotrope.storage.propagation.PropagationManager;
import io.heliotrope.storage.propagation.PropagationMetrics;
import io.heliotrope.storage.session.Controller.SiteAddress;
import io.heliotrope.storage.admin.ImageManager;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.DeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.image.ImageSessions;
import io.heliotrope.storage.image.LocalSessions;
import io.heliotrope.storage.image.Locality;
import io.heliotrope.storage.image.NbdExports;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.rocksdb.RocksBlockStore;
import io.heliotrope.storage.status.SiteStatusService;
import io.heliotrope.storage.session.Controller;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.session.GrpcController;
import io.heliotrope.storage.session.SiteTraits;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.WanWaits;
import io.heliotrope.storage.view.ViewCache;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.nio.file.Path;
import java.nio.file.Files;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

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
    private final GetServer metrics;
    private final SiteHandoffs handoffs;
    /** The VMs this site runs; with a controller only, which keeps their definitions. */
    private final QemuRunner runner;

    public StorageServer(SiteConfig config) {
        this.config = config;
        Instant started = Instant.now();
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
            Controller controller = null;
            Links links = null;
            if (config.controller() != null) {
                GrpcController controllers = new GrpcController(config.site(), config.controllers(), config.openWait(),
                        new SiteTraits(config.vmMemoryBytes(), config.intraSiteRtt()));
                controller = controllers;
                components.push(controller);
                StorageMetrics.bindFailovers(registry, controllers);
                links = links(registry, controller, sessionCalls);
                SyncRecoverer recovery = new SyncRecoverer(config.site(), links.peers(), controller, view, config.openWait());
                controlled = new ControllerSessions(config.site(), store, view, controller, recovery, sessionCalls, config.checkpointInterval(),
                        config.checkpointBlocks(), config.leaseHold());
                sessions = controlled;
                StorageMetrics.bindOrphans(registry, controlled);
            }
            components.push(() -> BoundedExecutors.shutdown(sessionCalls, SHUTDOWN_PATIENCE));
            WanWaits waits = StorageMetrics.wanWaits(registry);
            Replicas replicas = controlled == null ? null : replicas(registry, store, view, controller, controlled, links, waits);

            int storeThreads = config.storeThreads();
            Executor storeCalls = storeThreads > 0 ? pool("site-io", storeThreads, QUEUED_PER_IMAGE) : Runnable::run;
            log.info("site {}: block store calls run {}", config.site(), storeThreads > 0 ? "on " + storeThreads + " threads" : "on the NBD event loops");
            ExecutorService flushes = pool("site-flush", FLUSH_THREADS, QUEUED_PER_IMAGE);
            ReadCounter reads = StorageMetrics.reads(registry);
            DeviceFactory storeDevices = new DefaultDeviceFactory(store, replicas == null ? new LocalOnlyFetcher() : replicas.fetcher(),
                    replicas == null ? ReplicatorFactory.NONE : replicas.heats(), reads, waits, storeCalls, storeThreads == 0, flushes, ByteBufAllocator.DEFAULT,
                    replicas == null ? Background.Factory.NONE : replicas.pulls());
            DeviceFactory devices = replicas == null ? storeDevices
                    : new ModeDevices(storeDevices, replicas.peers(), view, reads, waits, storeCalls, ByteBufAllocator.DEFAULT);
            // Opens wait for another site's release and for recoveries (seconds): on threads of their own, never in front of lease renewals.
            ExecutorService openCalls = pool("site-opens", OPEN_THREADS, QUEUED_PER_IMAGE);
            ImageExports exports = new ImageExports(sessions, devices, openCalls);
            nbd = new NbdServer(new NbdServerConfig(new InetSocketAddress(config.bind(), config.nbdPort()), 0, config.nbdPoll()), new NbdExports(exports),
                    List.of(new BaseAllocation(), new Locality()), new NbdMetrics(registry), nbdTls(config));
            components.push(nbd);
            handoffs = controlled == null ? null : new SiteHandoffs(config.site(), controlled, exports, replicas.boosts(),
                    new GrpcHandoffPeers(config.site(), links.peers(), config.fetchTimeout()), sessionCalls, pool("site-handoff", HANDOFF_THREADS, QUEUED_CALLS),
                    nbd::localAddress, SiteHandoffs.STANDBY_LAPSE, config.handoffBoost());

            ExecutorService adminCalls = pool("site-admin", ADMIN_THREADS, QUEUED_CALLS);
            ExecutorService grpcCalls = pool("site-grpc", GRPC_THREADS, QUEUED_CALLS);
            SiteStatusService status = new SiteStatusService(config.site(), started, store, exports,
                    replicas == null ? Map::of : replicas.propagation()::backlogs, links == null ? () -> Traffic.NONE : links.metrics()::blockBytes,
                    replicas == null ? Map::of : replicas::pullsByImage, replicas == null ? Map::of : replicas.modes()::syncStatuses, pool("site-status", 1, QUEUED_CENSUSES));
            ImageGrpcService images = new ImageGrpcService(new ImageManager(store, view, exports, adminCalls, config.controller()), status,
                    nbd.localAddress().getPort());
            InetSocketAddress grpcAddress = new InetSocketAddress(config.bind(), config.grpcPort());
            if (handoffs != null) {
                runner = new QemuRunner(runnerConfig(config), handoffs);
                components.push(runner);
                handoffs.onStandbyLapsed(runner::abortIncomingWith);
            } else {
                runner = null;
            }
            grpc = replicas == null ? GrpcServers.start(grpcAddress, grpcCalls, images)
                    : GrpcServers.start(grpcAddress, grpcCalls, PeerGrpcService.FLOW_CONTROL_WINDOW, images, replicas.service(), new HandoffGrpcService(handoffs),
                            new VmRunnerGrpcService(runner));
            components.push(() -> GrpcServers.shutdown(grpc));

            metrics = GetServer.start(new InetSocketAddress(config.bind(), config.metricsPort()), "metrics-http", 1,
                    Map.of("/metrics", request -> Reply.prometheus(registry.scrape())));
            components.push(metrics);

            if (controlled != null) {
                join(controlled, controller, replicas, sessionCalls);
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof HeliotropeException h ? h
                    : new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot start site " + config.site() + ": " + HeliotropeException.rootMessage(e), e);
        }
        log.info("site {}: NBD on {}, gRPC on {}:{}, metrics on port {}, store {}",
                config.site(), nbd.localAddress(), config.bind(), grpc.getPort(), metrics.port(), config.store().name().toLowerCase(java.util.Locale.ROOT));
    }

    /** TLS for the NBD server as the site's configuration asks, its certificates read now: a mistake in them fails the start, naming the file. */
    private static NbdTls nbdTls(SiteConfig config) {
        try {
            return NbdTls.load(config.tls(), config.tlsDir() == null ? null : new TlsDirectory(config.tlsDir()), config.tlsAuthz());
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "site " + config.site() + ": NBD TLS: " + e.getMessage(), e);
        }
    }

    /**
     * The VM runner of this site: its VMs under the data directory (or a temporary one for a
     * memory store), incoming migrations on the site's migration ports, and other sites'
     * ports at the addresses configured for them.
     */
    private static RunnerConfig runnerConfig(SiteConfig config) throws IOException {
        Path state = config.dataDir() != null ? config.dataDir() : Files.createTempDirectory("heliotrope-vms-");
        Map<String, List<InetSocketAddress>> links = new HashMap<>();
        config.peerMigration().forEach((site, addresses) -> links.put(site, Arrays.stream(addresses.split(","))
                .map(String::strip)
                .map(StorageServer::hostAndPort)
                .toList()));
        return new RunnerConfig(config.site(), state, config.qemu(), config.localHost(), config.incomingMigrationPorts(), links, null);
    }

    private static InetSocketAddress hostAndPort(String address) {
        int colon = address.lastIndexOf(':');
        if (colon < 1) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "not a host:port: '" + address + "'");
        }
        return InetSocketAddress.createUnresolved(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }

    /**
     * The parts that replicate blocks between sites: the peer service and its clients, the
     * fetcher, the propagation manager and the replication modes. Pushes land only in
     * images that are not open for write here.
     */
    private Replicas replicas(PrometheusMeterRegistry registry, BlockStore store, ViewCache view, Controller controller, ControllerSessions sessions, Links links,
                             WanWaits waits) {
        RegisteredSites sites = links.sites();
        PeerMetrics peerMetrics = links.metrics();
        GrpcPeers peers = links.peers();
        ExecutorService peerStore = pool("site-peer", PEER_THREADS, QUEUED_CALLS);
        ScheduledThreadPoolExecutor pushSteps = BoundedExecutors.scheduled("site-push", 1, QUEUED_PER_IMAGE);
        components.push(() -> BoundedExecutors.shutdown(pushSteps, SHUTDOWN_PATIENCE));
        ExecutorService pushReads = pool("site-push-read", PUSH_READ_THREADS, QUEUED_PER_IMAGE);
        // A push is late when a peer call would have timed out: the site then waits, the push goes on.
        PropagationManager propagation = new PropagationManager(config.site(), store, peers, pushSteps, pushReads, Clock.systemUTC(), new SplittableRandom(),
                PropagationConfig.DEFAULT.withAnswerWithin(config.fetchTimeout().dividedBy(2)), new PropagationMetrics(registry));
        components.push(propagation);
        // Asked under the store's write lock, with the check of each copy: an open that starts after it finds the copy.
        // A copy a peer makes here is of an image of the catalog, asked within the time a peer call has.
        PeerService service = new PeerService(store, view, image -> (copy, local) -> !sessions.holdsForWrite(image.name()) && CopyRule.NEWER.accepts(copy, local),
                new CatalogCheck(name -> controller.image(name, config.fetchTimeout().dividedBy(2)), registry), peerStore, pool("site-peer-bulk", 1, QUEUED_CALLS));
        ScheduledThreadPoolExecutor syncTimers = BoundedExecutors.scheduled("site-sync", 1, QUEUED_PER_IMAGE);
        components.push(() -> BoundedExecutors.shutdown(syncTimers, SHUTDOWN_PATIENCE));
        // A sync write waits for a site as long as an open waits for the recovery that needs one.
        ModeReplicators modes = new ModeReplicators(config.site(), propagation, view,
                new SyncContext(peers, store, sites, syncTimers, pushReads, config.openWait(), waits,
                        new GroupSync(store::sync, pool("site-sync-local", 1, QUEUED_PER_IMAGE))), registry);
        // Every image's reads and writes are counted here, whatever its mode, for the site that holds it next (DESIGN.md section 4).
        HeatLog heat = new HeatLog(Clock.systemUTC());
        Boosts boosts = new Boosts(config.site(), store, view, propagation, modes);
        ScheduledThreadPoolExecutor pullSteps = BoundedExecutors.scheduled("site-pull", 1, QUEUED_PER_IMAGE);
        components.push(() -> BoundedExecutors.shutdown(pullSteps, SHUTDOWN_PATIENCE));
        PullManager pulls = new PullManager(new GrpcHeatSource(config.site(), sites, peers, peerMetrics, GrpcHeatSource.DEFAULT_TIMEOUT), pullSteps,
                Clock.systemUTC(), PullConfig.DEFAULT, config.pullOrder(), registry);
        return new Replicas(sites, peers, new PeerFetcher(store, peers, sites, peerMetrics, peerStore, config.fetchTimeout()), modes, boosts, new Heats(boosts, heat),
                pulls, new PeerGrpcService(service, new HeatService(heat, propagation, registry), sites, peerMetrics), propagation);
    }

    /**
     * The other sites and the client that calls them: the sessions need it before the rest
     * of the replicas, to recover a dead sync holding (through this site's own peer service
     * too, when it took copies).
     */
    private Links links(PrometheusMeterRegistry registry, Controller controller, Executor listing) {
        RegisteredSites sites = new RegisteredSites(config.site(), config.peers(),
                () -> controller.sites().stream().collect(Collectors.toMap(SiteAddress::name, SiteAddress::grpcAddress)), listing);
        PeerMetrics metrics = new PeerMetrics(registry);
        // Each call to a peer gets half the fetch timeout: a holder that does not answer leaves time to ask another site.
        GrpcPeers peers = new GrpcPeers(config.site(), sites, metrics, new GrpcPeersConfig(config.peerConnections(), config.peerBulkConnections(),
                config.fetchTimeout().dividedBy(2)));
        components.push(peers);
        return new Links(sites, metrics, peers);
    }

    private record Links(RegisteredSites sites, PeerMetrics metrics, GrpcPeers peers) {}

    private record Replicas(RegisteredSites sites, Peers peers, PeerFetcher fetcher, ModeReplicators modes, Boosts boosts, Heats heats,
                            PullManager pulls, PeerGrpcService service,
                            PropagationManager propagation) {
        /** The pull of each image open here; of two sessions of one image (one closing), the later one's. */
        Map<String, PullStatus> pullsByImage() {
            return pulls.statuses().stream().collect(Collectors.toMap(PullStatus::image, Function.identity(), (earlier, later) -> later));
        }
    }

    /**
     * Registers with the controller, flushes what an earlier run left, then keeps the
     * catalog and the other sites' addresses fresh, and measures the round trips to them.
     */
    private void join(ControllerSessions sessions, Controller controller, Replicas replicas, ScheduledExecutorService scheduler) {
        log.info("site {}: joining controller {}", config.site(), config.controller());
        sessions.register(config.bind() + ":" + grpc.getPort(), config.bind() + ":" + nbd.localAddress().getPort());
        sessions.recover();
        components.push(sessions.startRefreshing(CATALOG_REFRESH)::run);
        replicas.sites().relist().join();
        everyRefresh(scheduler, replicas.sites()::relist);
        everyRefresh(scheduler, () -> replicas.modes().refresh(controller::replication));
        everyRefresh(scheduler, () -> replicas.pulls().refresh(controller::replication));
        RttProber prober = new RttProber(replicas.peers(), replicas.sites(), controller::reportRtt, scheduler, RTT_INTERVAL, RTT_PROBES);
        prober.start();
        components.push(prober);
    }

    /** A fixed pool of named threads, shut down with the site. */
    private ExecutorService pool(String name, int threads, int queued) {
        ExecutorService pool = BoundedExecutors.fixed(name, threads, queued);
        components.push(() -> BoundedExecutors.shutdown(pool, SHUTDOWN_PATIENCE));
        return pool;
    }

    /** Runs {@code task} as often as the catalog is refreshed, until the site stops. */
    private void everyRefresh(ScheduledExecutorService scheduler, Runnable task) {
        ScheduledFuture<?> runs = scheduler.scheduleWithFixedDelay(task, CATALOG_REFRESH.toMillis(), CATALOG_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        components.push(() -> runs.cancel(false));
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

    /**
     * What the site's VM runner asks of its storage (the handoff's steps it takes by itself);
     * empty for a site without a controller, which hands nothing over.
     */
    public Optional<SiteDisks> siteDisks() {
        return Optional.ofNullable(handoffs);
    }

    /** The handoffs of this site, to hear of standbys that lapse; empty without a controller. */
    public Optional<SiteHandoffs> handoffs() {
        return Optional.ofNullable(handoffs);
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
    private static final Duration RTT_INTERVAL = Duration.ofSeconds(10);
    /** Pings per peer each round; the median is what the matrix keeps. */
    private static final int RTT_PROBES = 5;
    /** Fetched copies and pushed ones are stored on these, beside the NBD path. */
    private static final int PEER_THREADS = 4;
    private static final int PUSH_READ_THREADS = 2;
    /** Opens and closes of some images wait on the controller; renewals of the others must not queue behind them. */
    private static final int SESSION_THREADS = 8;
    private static final int ADMIN_THREADS = 2;
    /** Handoffs wait on the controller (a handover up to its deadline): a few at once. */
    private static final int HANDOFF_THREADS = 4;
    /** Opens and closes of as many images at once; more wait their turn. */
    private static final int OPEN_THREADS = 8;
    /** FLUSHes take turns on the store's write lock, and one that waits shares the next one's sync: two threads keep one waiting. */
    private static final int FLUSH_THREADS = 2;
    /** gRPC callbacks only convert and hand calls on. */
    private static final int GRPC_THREADS = 4;
    /** The site's status takes one census of the store at a time; more never queue. */
    private static final int QUEUED_CENSUSES = 4;
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
