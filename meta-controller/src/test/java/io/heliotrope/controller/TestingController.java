package io.heliotrope.controller;

import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.catalog.ImageSpec;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.CompactionPolicy;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.metadata.Flushed;
import io.heliotrope.controller.metrics.ControllerMetrics;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ControllerServiceConfig;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ControllerService} on its own ZooKeeper session. Background work runs on the
 * calling thread, so a flush returns only after the compaction it triggered: no waiting.
 */
public final class TestingController implements AutoCloseable {
    public static final Duration LEASE_TTL = Duration.ofSeconds(15);
    /** Never compacts on its own: tests that compact say so. */
    public static final CompactionPolicy MANUAL = new CompactionPolicy(Integer.MAX_VALUE, Long.MAX_VALUE, Duration.ofMinutes(10));

    private final String root;
    private final ControllerMetrics metrics = new ControllerMetrics();
    private final ZooKeeperStore zk;
    private final ExecutorService executor;
    private final ControllerService service;

    public TestingController(EmbeddedZooKeeper server, String root, Clock clock, CompactionPolicy policy) {
        AtomicInteger threads = new AtomicInteger();
        this.root = root;
        this.zk = ZooKeeperStore.connect(server.connectString(), Duration.ofSeconds(10), metrics.zooKeeper());
        this.executor = Executors.newFixedThreadPool(4, task -> new Thread(task, "test-controller-" + threads.incrementAndGet()));
        this.service = new ControllerService(zk, new ControllerServiceConfig(root, LEASE_TTL, policy, null), clock, executor, Runnable::run, metrics);
    }

    /** A root path of its own, so that tests sharing a ZooKeeper never meet. */
    /**
     * A controller under a root of its own, compacting only when told, with these sites
     * registered and an image {@code image} of 1024 blocks: what lease tests start from.
     */
    public static TestingController withImage(EmbeddedZooKeeper server, Clock clock, String image, String... sites) {
        TestingController controller = new TestingController(server, newRoot(), clock, MANUAL);
        controller.registerSites(sites);
        controller.createImage(image, 1024);
        return controller;
    }

    public static String newRoot() {
        return "/test-" + UUID.randomUUID();
    }

    public String root() {
        return root;
    }

    public ControllerService service() {
        return service;
    }

    public ZooKeeperStore zk() {
        return zk;
    }

    public ControllerMetrics metrics() {
        return metrics;
    }

    /** The value of a call; its failure rethrown as the {@code HeliotropeException} the service raised. */
    public static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new AssertionError(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    public void registerSites(String... names) {
        for (String name : names) {
            await(service.registerSite(new Site(name, name + ":7410", name + ":10809", 0.02, 0, 0)));
        }
    }

    public ImageConfig createImage(String name, long blocks) {
        return await(service.createImage(new ImageSpec(name, blocks * ImageConfig.BLOCK_SIZE))).image().config();
    }

    public Lease openForWrite(String image, String site) {
        return await(service.openImage(image, site, OpenMode.WRITE, 0, Duration.ZERO)).lease();
    }

    public Flushed flush(String image, String site, long epoch, BlockEntries entries) {
        return await(service.flush(new Flush(image, site, epoch, false, "", entries)));
    }

    @Override
    public void close() {
        executor.shutdownNow();
        zk.close();
        metrics.close();
    }
}
