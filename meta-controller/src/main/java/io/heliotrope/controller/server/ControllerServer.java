package io.heliotrope.controller.server;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.util.MutableHandlerRegistry;
import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.controller.app.ApplicationRegistry;
import io.heliotrope.controller.app.ApplicationView;
import io.heliotrope.controller.app.ZooKeeperElection;
import io.heliotrope.controller.cluster.ClusterView;
import io.heliotrope.controller.cluster.ClusterViewConfig;
import io.heliotrope.controller.cluster.VmView;
import io.heliotrope.controller.http.StatusHttpServer;
import io.heliotrope.controller.http.StatusSource;
import io.heliotrope.controller.metadata.CompactionPolicy;
import io.heliotrope.controller.metrics.ControllerMetrics;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ControllerServiceConfig;
import io.heliotrope.controller.vm.VmService;
import io.heliotrope.controller.zookeeper.AclMigration;
import io.heliotrope.controller.zookeeper.ControllerAcl;
import io.heliotrope.controller.zookeeper.SecretFile;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.http.GetServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutorService;

/**
 * A controller process: metrics, ZooKeeper session, the executors that run ZooKeeper work,
 * the domain services (images and leases, VMs), the cluster view, the gRPC server and the status port (metrics, JSON
 * API, status page). The composition root; components close in reverse order.
 */
public final class ControllerServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerServer.class);
    private static final int ZOOKEEPER_THREADS = 8;
    private static final int QUEUED_REQUESTS = 1024;
    private static final int QUEUED_BACKGROUND_TASKS = 256;
    /** gRPC callbacks only convert and hand calls to the ZooKeeper executor. */
    private static final int GRPC_THREADS = 4;
    private static final Duration SHUTDOWN_PATIENCE = Duration.ofSeconds(10);
    /**
     * The most gRPC's own window tuning reaches (GrpcServers keeps that tuning only for a server
     * of one service): a flush or an open over the WAN streams at most window / RTT.
     */
    private static final int FLOW_CONTROL_WINDOW = 8 << 20;

    private final Deque<AutoCloseable> components = new ArrayDeque<>();
    private final ControllerMetrics metrics;
    private final ClusterView cluster;
    private final Server grpc;
    private final GetServer status;
    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;
    private final ApplicationRegistry applications;
    /** Services that run beside the controller's own on its port (the migration driver's). */
    private final MutableHandlerRegistry added = new MutableHandlerRegistry();

    private ControllerServer(ControllerConfig config) throws IOException {
        try {
            metrics = new ControllerMetrics();
            components.push(metrics);
            ControllerAcl acl = config.zookeeperAuthFile() == null ? ControllerAcl.OPEN : SecretFile.read(config.zookeeperAuthFile());
            ZooKeeperStore zk = ZooKeeperStore.connect(config.zookeeperConnect(), config.zookeeperSessionTimeout(), acl, metrics.zooKeeper());
            components.push(zk);
            layout = new ZooKeeperLayout(config.rootPath());
            if (acl.secured()) {
                AclMigration.run(zk, layout);
            } else {
                log.warn("controller: no ZooKeeper secret (--zookeeper-auth-file): anyone who reaches ZooKeeper at {} may read and change "
                        + "everything under {}", config.zookeeperConnect(), config.rootPath());
            }
            ExecutorService executor = BoundedExecutors.fixed("controller-zk", ZOOKEEPER_THREADS, QUEUED_REQUESTS);
            components.push(() -> BoundedExecutors.shutdown(executor, SHUTDOWN_PATIENCE));
            ExecutorService background = BoundedExecutors.fixed("controller-compaction", 1, QUEUED_BACKGROUND_TASKS);
            components.push(() -> BoundedExecutors.shutdown(background, SHUTDOWN_PATIENCE));
            ControllerServiceConfig serviceConfig = new ControllerServiceConfig(config.rootPath(), config.leaseTtl(), CompactionPolicy.DEFAULT, null);
            ControllerService service = new ControllerService(zk, serviceConfig, Clock.systemUTC(), executor, background, metrics);
            cluster = new ClusterView(service, metrics, ClusterViewConfig.DEFAULT, Clock.systemUTC());
            components.push(cluster);
            ExecutorService calls = BoundedExecutors.fixed("controller-grpc", GRPC_THREADS, QUEUED_REQUESTS);
            components.push(() -> BoundedExecutors.shutdown(calls, SHUTDOWN_PATIENCE));
            VmService vms = new VmService(zk, layout, Clock.systemUTC(), executor, metrics.migrations());
            VmView vmView = new VmView(vms, service, cluster, Clock.systemUTC());
            this.zk = zk;
            applications = new ApplicationRegistry(zk, layout, Clock.systemUTC());
            ApplicationView applicationView = new ApplicationView(applications, vms, executor, Clock.systemUTC());
            grpc = GrpcServers.start(new InetSocketAddress(config.bindAddress(), config.grpcPort()), calls, FLOW_CONTROL_WINDOW, added,
                    new ControllerGrpcService(service, cluster), new VmGrpcService(vms));
            components.push(() -> GrpcServers.shutdown(grpc));
            status = StatusHttpServer.start(new InetSocketAddress(config.bindAddress(), config.statusPort()),
                    new StatusSource(cluster::statusAsync, cluster::localityAsync, vmView::statusAsync, applicationView::statusAsync), metrics::scrape);
            components.push(status);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        log.info("controller: gRPC on {}:{}, status page on http://{}:{}/, ZooKeeper at {} under {} (znodes {})",
                config.bindAddress(), grpc.getPort(), config.bindAddress(), status.port(), config.zookeeperConnect(), config.rootPath(), zk.acl());
    }

    /**
     * Connects to ZooKeeper (failing with {@code PEER_UNAVAILABLE} when it cannot within the session timeout), then serves
     * gRPC and the status port.
     */
    public static ControllerServer start(ControllerConfig config) throws IOException {
        return new ControllerServer(config);
    }

    /** Serves {@code service} on the controller's gRPC port from now on: what runs beside the controller (the migration driver). */
    public void addService(BindableService service) {
        added.addService(service);
    }

    public int grpcPort() {
        return grpc.getPort();
    }

    /**
     * The status port: {@code /metrics}, {@code /api/status}, {@code /api/locality}, {@code /api/vms}, {@code /api/applications}
     * and the status page on {@code /}.
     */
    public int statusPort() {
        return status.port();
    }

    public ClusterView clusterView() {
        return cluster;
    }

    /** Its meters: {@code metrics().registry()} is where what runs beside the controller (the scheduler) registers its own. */
    public ControllerMetrics metrics() {
        return metrics;
    }

    /** The scheduler's applications, reports and decisions, on this controller's ZooKeeper session (calls block). */
    public ApplicationRegistry applications() {
        return applications;
    }

    /**
     * Joins the schedulers' election on this controller's ZooKeeper session as {@code id} (its gRPC
     * address): the caller closes it, before this server; the session's end ends its leadership.
     */
    public ZooKeeperElection election(String id) {
        return new ZooKeeperElection(zk, layout, id);
    }

    public void awaitTermination() throws InterruptedException {
        grpc.awaitTermination();
    }

    @Override
    public void close() {
        while (!components.isEmpty()) {
            try {
                components.pop().close();
            } catch (Exception e) {
                log.warn("controller: error while stopping", e);
            }
        }
    }
}
