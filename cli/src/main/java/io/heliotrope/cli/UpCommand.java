package io.heliotrope.cli;

import io.heliotrope.controller.server.ControllerConfig;
import io.heliotrope.controller.server.ControllerServer;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.StorageServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "up",
        mixinStandardHelpOptions = true,
        description = {"Run the embedded default: an in-process ZooKeeper, a controller, and one site registered",
                "with it, serving a demo image over NBD. Prints the nbd:// URL to attach; stop with Ctrl-C.",
                "Data (block store and ZooKeeper) persists in --data-dir."})
final class UpCommand implements Callable<Integer> {
    private static final String DEMO = "demo";

    @Mixin
    SiteOptions site;

    @Option(names = "--demo-size", paramLabel = "SIZE", converter = Sizes.class, defaultValue = "256M",
            description = "Size of the demo image when it is first made (default: ${DEFAULT-VALUE}).")
    long demoSize;

    @Option(names = "--controller-port", paramLabel = "PORT", defaultValue = "" + ControllerConfig.DEFAULT_GRPC_PORT,
            description = "gRPC port of the embedded controller (default: ${DEFAULT-VALUE}; 0 picks one).")
    int controllerPort;

    @Override
    public Integer call() throws Exception {
        SiteConfig local = site.load(defaultDataDir());
        if (local.dataDir() == null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "helio up keeps ZooKeeper's data on disk: give --data-dir");
        }
        Deque<AutoCloseable> parts = new ArrayDeque<>();
        AutoCloseable all = () -> parts.forEach(UpCommand::closeQuietly);
        SiteConfig config;
        StorageServer server;
        try {
            EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(local.dataDir().resolve("zookeeper"), 0);
            parts.push(zookeeper);
            ControllerServer controller = ControllerServer.start(new ControllerConfig(zookeeper.connectString(), "127.0.0.1", controllerPort, null, null, null));
            parts.push(controller);
            config = withController(local, "127.0.0.1:" + controller.grpcPort());
            server = new StorageServer(config);
            parts.push(server);
            ServeCommand.createMissing(config, server.grpcPort(), List.of(new ImageSpec(DEMO, demoSize)));
        } catch (Exception e) {
            all.close();
            throw e;
        }
        String host = config.localHost();
        String url = "nbd://" + host + ":" + server.nbdAddress().getPort() + "/" + DEMO;
        System.out.println("Heliotrope is up: site " + config.site() + ", data in " + config.dataDir());
        System.out.println("  demo image : " + url);
        System.out.println("  controller : " + config.controller() + "   (helio image show " + DEMO + " --controller " + config.controller() + ")");
        System.out.println("  site gRPC  : " + host + ":" + server.grpcPort());
        System.out.println("  metrics    : http://" + host + ":" + server.metricsPort() + "/metrics");
        System.out.println("Try: qemu-img info " + url + "   or   nbdinfo " + url);
        System.out.println("Press Ctrl-C to stop.");
        System.out.flush();
        return Running.untilStopped(all);
    }

    private static SiteConfig withController(SiteConfig c, String controller) {
        return new SiteConfig(c.site(), c.dataDir(), c.store(), c.bind(), c.nbdPort(), c.grpcPort(), c.metricsPort(), c.ioThreads(), c.nbdPoll(),
                c.blockCacheBytes(), controller, c.checkpointInterval(), c.checkpointBlocks(), c.openWait());
    }

    private static void closeQuietly(AutoCloseable part) {
        try {
            part.close();
        } catch (Exception e) {
            System.err.println("helio: while stopping: " + e);
        }
    }

    private static Path defaultDataDir() {
        String state = System.getenv("XDG_STATE_HOME");
        Path base = state == null || state.isEmpty() ? Path.of(System.getProperty("user.home"), ".local", "state") : Path.of(state);
        return base.resolve("heliotrope").resolve("up");
    }
}
