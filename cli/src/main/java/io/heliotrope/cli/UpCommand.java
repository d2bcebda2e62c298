package io.heliotrope.cli;

import io.heliotrope.controller.server.ControllerConfig;
import io.heliotrope.controller.server.ControllerServer;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.TransitionTable;
import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.StorageServer;
import io.heliotrope.wan.LinkConfig;
import io.heliotrope.wan.WanEmulator;
import io.heliotrope.wan.WanLink;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "up",
        mixinStandardHelpOptions = true,
        description = {"Run the embedded default: an in-process ZooKeeper and controller, and two sites, virginia and taiwan,",
                "joined by an emulated WAN (every byte between the sites, and from taiwan to the controller at virginia,",
                "crosses a link with --wan-rtt and --wan-bandwidth). Serves a demo image, homed at virginia, at both sites:",
                "write it at one, read it at the other. Prints the nbd:// URLs once both sites serve; stop with Ctrl-C.",
                "Data (block stores and ZooKeeper) persists in --data-dir. The ports given are virginia's; taiwan's are one more."})
final class UpCommand implements Callable<Integer> {
    private static final String DEMO = "demo";
    private static final String FIRST = "virginia";
    private static final String SECOND = "taiwan";

    @Mixin
    SiteOptions site;

    @Option(names = "--demo-size", paramLabel = "SIZE", converter = Sizes.class, defaultValue = "256M",
            description = "Size of the demo image when it is first made (default: ${DEFAULT-VALUE}).")
    long demoSize;

    @Option(names = "--controller-port", paramLabel = "PORT", defaultValue = "" + ControllerConfig.DEFAULT_GRPC_PORT,
            description = "gRPC port of the embedded controller (default: ${DEFAULT-VALUE}; 0 picks one).")
    int controllerPort;

    @Option(names = "--wan-rtt", paramLabel = "DURATION", defaultValue = "75ms",
            description = "Round-trip time between the sites, and from taiwan to the controller (default: ${DEFAULT-VALUE}).")
    String wanRtt;

    @Option(names = "--wan-bandwidth", paramLabel = "RATE", defaultValue = "1gbit",
            description = "Capacity of each direction of each WAN link, e.g. 100mbit or 1gbit (default: ${DEFAULT-VALUE}).")
    String wanBandwidth;

    @Override
    public Integer call() throws Exception {
        SiteConfig base = site.load(defaultDataDir());
        if (base.dataDir() == null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "helio up keeps ZooKeeper's data on disk: give --data-dir");
        }
        LinkConfig wan = wanLink();
        Deque<AutoCloseable> parts = new ArrayDeque<>();
        AutoCloseable all = () -> parts.forEach(UpCommand::closeQuietly);
        StorageServer first;
        StorageServer second;
        String controllerTarget;
        try {
            EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(base.dataDir().resolve("zookeeper"), 0);
            parts.push(zookeeper);
            ControllerServer controller = ControllerServer.start(new ControllerConfig(zookeeper.connectString(), "127.0.0.1", controllerPort, null, null, null));
            parts.push(controller);
            InetSocketAddress controllerAddress = new InetSocketAddress(base.localHost(), controller.grpcPort());
            controllerTarget = base.localHost() + ":" + controller.grpcPort();
            int[] ports = {port(base.nbdPort(), 0), port(base.grpcPort(), 0), port(base.metricsPort(), 0),
                    port(base.nbdPort(), 1), port(base.grpcPort(), 1), port(base.metricsPort(), 1)};

            WanEmulator emulator = new WanEmulator();
            parts.push(emulator);
            String toSecond = address(link(emulator, FIRST, SECOND, new InetSocketAddress(base.localHost(), ports[4]), wan));
            String toFirst = address(link(emulator, SECOND, FIRST, new InetSocketAddress(base.localHost(), ports[1]), wan));
            String firstToController = address(link(emulator, FIRST, "controller", controllerAddress, LinkConfig.direct()));
            String secondToController = address(link(emulator, SECOND, "controller", controllerAddress, wan));

            first = new StorageServer(base.forSite(FIRST, base.dataDir().resolve(FIRST), ports[0], ports[1], ports[2], firstToController,
                    Map.of(SECOND, toSecond)));
            parts.push(first);
            second = new StorageServer(base.forSite(SECOND, base.dataDir().resolve(SECOND), ports[3], ports[4], ports[5], secondToController,
                    Map.of(FIRST, toFirst)));
            parts.push(second);
            try (CatalogClient catalog = new CatalogClient(controllerTarget)) {
                ImageSpec.createMissing(List.of(new ImageSpec(DEMO, demoSize)), (name, size) -> catalog.create(name, size, demoReplication()));
            }
        } catch (Exception e) {
            all.close();
            throw e;
        }
        ClientConfig.save(controllerTarget);
        printBanner(base, controllerTarget, first, second);
        return Running.untilStopped(all);
    }

    /** Proactive, homed at virginia, its VM expected to move back and forth between the two sites. */
    private static ReplicationSettings demoReplication() {
        return ReplicationSettings.newBuilder()
                .setHome(FIRST)
                .setTransitions(TransitionTable.newBuilder().addSites(FIRST).addSites(SECOND).addAllProbabilities(List.of(0.0, 1.0, 1.0, 0.0)))
                .build();
    }

    private void printBanner(SiteConfig base, String controller, StorageServer first, StorageServer second) {
        String host = base.localHost();
        System.out.println("Heliotrope is up: sites " + FIRST + " and " + SECOND + ", " + wanRtt + " round trip and " + wanBandwidth
                + " between them; data in " + base.dataDir());
        for (StorageServer server : List.of(first, second)) {
            String name = server.config().site();
            System.out.printf("  %-9s: nbd://%s:%d/%s   gRPC %s:%d   metrics http://%s:%d/metrics%n",
                    name, host, server.nbdAddress().getPort(), DEMO, host, server.grpcPort(), host, server.metricsPort());
        }
        System.out.println("  demo image : nbd://" + host + ":" + first.nbdAddress().getPort() + "/" + DEMO);
        System.out.println("  controller : " + controller + "   (helio image show " + DEMO + " --controller " + controller + ")");
        System.out.println("  metrics    : http://" + host + ":" + first.metricsPort() + "/metrics");
        System.out.println("Try: nbdcopy --progress /dev/urandom nbd://" + host + ":" + first.nbdAddress().getPort() + "/" + DEMO
                + "   then   nbdinfo --map=heliotrope:locality nbd://" + host + ":" + second.nbdAddress().getPort() + "/" + DEMO);
        System.out.println("Press Ctrl-C to stop.");
        System.out.flush();
    }

    private LinkConfig wanLink() {
        try {
            return LinkConfig.parse(wanRtt, wanBandwidth);
        } catch (IllegalArgumentException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid WAN link: " + e.getMessage());
        }
    }

    private static WanLink link(WanEmulator emulator, String from, String to, InetSocketAddress target, LinkConfig config) {
        return emulator.addLink(from + "->" + to, new InetSocketAddress(target.getHostString(), 0), target, config);
    }

    private static String address(WanLink link) {
        return link.listenAddress().getHostString() + ":" + link.listenAddress().getPort();
    }

    /** The port of the {@code index}th site: the given one plus the index, or a free one when 0 was given (the links must know it first). */
    private static int port(int given, int index) throws IOException {
        if (given != 0) {
            return given + index;
        }
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
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
