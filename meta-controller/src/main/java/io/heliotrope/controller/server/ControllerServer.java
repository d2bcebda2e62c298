package io.heliotrope.controller.server;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.heliotrope.controller.metadata.CompactionPolicy;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ControllerServiceConfig;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A controller process: ZooKeeper session, the executors that run ZooKeeper work, the
 * domain service and its gRPC server. The composition root; components close in reverse order.
 */
public final class ControllerServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerServer.class);
    private static final int ZOOKEEPER_THREADS = 8;
    private static final int QUEUED_REQUESTS = 1024;
    private static final int QUEUED_BACKGROUND_TASKS = 256;

    private final Deque<AutoCloseable> components = new ArrayDeque<>();
    private final Server grpc;

    private ControllerServer(ControllerConfig config) throws IOException {
        try {
            ZooKeeperStore zk = ZooKeeperStore.connect(config.zookeeperConnect(), config.zookeeperSessionTimeout());
            components.push(zk);
            ExecutorService executor = boundedExecutor("controller-zk", ZOOKEEPER_THREADS, QUEUED_REQUESTS);
            components.push(() -> shutdown(executor));
            ExecutorService background = boundedExecutor("controller-compaction", 1, QUEUED_BACKGROUND_TASKS);
            components.push(() -> shutdown(background));
            ControllerServiceConfig serviceConfig = new ControllerServiceConfig(config.rootPath(), config.leaseTtl(), CompactionPolicy.DEFAULT);
            ControllerService service = new ControllerService(zk, serviceConfig, Clock.systemUTC(), executor, background);
            grpc = Grpc.newServerBuilderForPort(config.grpcPort(), InsecureServerCredentials.create())
                    .addService(new ControllerGrpcService(service))
                    .build()
                    .start();
            components.push(() -> shutdown(grpc));
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        log.info("controller: gRPC on {}:{} (listening on all interfaces), ZooKeeper at {} under {}",
                config.bindAddress(), grpc.getPort(), config.zookeeperConnect(), config.rootPath());
    }

    /** Connects to ZooKeeper (failing with {@code PEER_UNAVAILABLE} when it cannot within the session timeout), then serves gRPC. */
    public static ControllerServer start(ControllerConfig config) throws IOException {
        return new ControllerServer(config);
    }

    public int grpcPort() {
        return grpc.getPort();
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

    private static ExecutorService boundedExecutor(String name, int threads, int queued) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queued), factory);
    }

    private static void shutdown(ExecutorService executor) throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
            executor.shutdownNow();
        }
    }

    private static void shutdown(Server server) throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
            server.shutdownNow();
        }
    }
}
