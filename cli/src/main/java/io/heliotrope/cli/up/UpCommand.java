package io.heliotrope.cli.up;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.ClientConfig;
import io.heliotrope.cli.print.Sizes;
import io.heliotrope.cli.server.ImageSpec;
import io.heliotrope.cli.server.NbdsUri;
import io.heliotrope.cli.server.Logging;
import io.heliotrope.cli.server.PortsInUse;
import io.heliotrope.cli.server.Running;
import io.heliotrope.cli.server.SchedulerOptions;
import io.heliotrope.cli.server.ServerPort;
import io.heliotrope.cli.server.SiteOptions;
import io.heliotrope.cli.server.StateDirectory;
import io.heliotrope.controller.server.ControllerConfig;
import io.heliotrope.controller.server.ControllerServer;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.SecretFile;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.tls.TlsMode;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.TransitionTable;
import io.heliotrope.scheduler.migration.DriverConfig;
import io.heliotrope.scheduler.migration.grpc.DriverHost;
import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.StorageServer;
import io.heliotrope.wan.LinkConfig;
import io.heliotrope.wan.WanEmulator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "up",
        mixinStandardHelpOptions = true,
        description = {"Run the embedded default: an in-process ZooKeeper and controller, and two sites, virginia and taiwan,",
                "joined by an emulated WAN (every byte between the sites, and from taiwan to the controller at virginia,",
                "crosses a link with --wan-rtt and --wan-bandwidth). Serves a demo image, homed at virginia, at both sites:",
                "write it at one, read it at the other. Prints the nbd:// URLs once both sites serve it; stop with Ctrl-C.",
                "NBD takes TLS too (--tls on, unless --tls off): certificates of a CA of its own, in DATA-DIR/tls for every client.",
                "Data (block stores and ZooKeeper) persists in --data-dir. The ports given are virginia's; taiwan's are one more."})
public final class UpCommand implements Callable<Integer> {
    private static final String DEMO = "demo";
    private static final String FIRST = "virginia";
    private static final String SECOND = "taiwan";
    private static final String CONTROLLER_BIND = "127.0.0.1";
    /** In the data directory: the controllers' ZooKeeper secret (SecretFile), made at the first start. */
    private static final String ZOOKEEPER_SECRET = "zookeeper-secret";

    @Mixin
    SiteOptions site;

    @Mixin
    SchedulerOptions scheduler;

    @Option(names = "--demo-size", paramLabel = "SIZE", converter = Sizes.class, defaultValue = "256M",
            description = "Size of the demo image when it is first made (default: ${DEFAULT-VALUE}).")
    long demoSize;

    @Option(names = "--controller-port", paramLabel = "PORT", defaultValue = "" + ControllerConfig.DEFAULT_GRPC_PORT,
            description = "gRPC port of the embedded controller (default: ${DEFAULT-VALUE}; 0 picks one).")
    int controllerPort;

    @Option(names = "--controllers", paramLabel = "N", defaultValue = "1",
            description = "How many controllers to run on the embedded ZooKeeper: this process's, and N-1 more, each a `helio controller` "
                    + "child process on the ports after --controller-port and --status-port. The sites and client.yaml list the children "
                    + "first: kill -9 one (its pid is printed) and the sites go on through the next (default: ${DEFAULT-VALUE}).")
    int controllers;

    @Option(names = "--status-port", paramLabel = "PORT", defaultValue = "" + ControllerConfig.DEFAULT_STATUS_PORT,
            description = "HTTP port of the controller's status page, its JSON API and /metrics (default: ${DEFAULT-VALUE}; 0 picks one).")
    int statusPort;

    @Option(names = "--wan-rtt", paramLabel = "DURATION", defaultValue = "75ms",
            description = "Round-trip time between the sites, and from taiwan to the controller (default: ${DEFAULT-VALUE}).")
    String wanRtt;

    @Option(names = "--wan-bandwidth", paramLabel = "RATE", defaultValue = "1gbit",
            description = "Capacity of each direction of each WAN link, e.g. 100mbit or 1gbit (default: ${DEFAULT-VALUE}).")
    String wanBandwidth;

    @Option(names = "--no-wan",
            description = "Join the sites to each other and to the controller directly, with no emulated link (a LAN): what the WAN emulator"
                    + " costs by itself shows against a run with --wan-rtt 0ms. --wan-rtt and --wan-bandwidth do not apply then.")
    boolean noWan;

    @Option(names = "--log-file", paramLabel = "FILE",
            description = "Where the full log goes, rolled over at 50 MiB (default: DATA-DIR/logs/helio-up.log); the console shows our events "
                    + "and the libraries' warnings.")
    Path logFile;

    @Override
    public Integer call() throws Exception {
        SiteConfig base = site.load(StateDirectory.resolve("up"));
        if (base.dataDir() == null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "helio up keeps ZooKeeper's data on disk: give --data-dir");
        }
        if (controllers < 1 || controllers > 9) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--controllers must be between 1 and 9: " + controllers);
        }
        LinkConfig wan = wanLink();
        int[] ports = sitePorts(base);
        List<ServerPort> listening = serverPorts(base.bind(), ports);
        // Before anything starts: a second helio up on the same data directory must not open the first one's ZooKeeper files.
        PortsInUse.check(listening);
        // Made after the check: a helio up refused for a port in use writes nothing.
        base = UpCertificates.secure(base, site.tlsTurnedOff());
        Path log = logFile != null ? logFile : base.dataDir().resolve("logs").resolve("helio-up.log");
        Logging.consoleAndFile(log);

        Deque<AutoCloseable> parts = new ArrayDeque<>();
        AutoCloseable all = () -> parts.forEach(UpCommand::closeQuietly);
        StorageServer first;
        StorageServer second;
        String controllerTarget;
        String statusPage;
        List<ControllerProcesses.Child> children;
        try {
            EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(base.dataDir().resolve("zookeeper"), 0);
            parts.push(zookeeper);
            // A state directory of an earlier release has none: its controller secures the open tree at its first start.
            Path secret = base.dataDir().resolve(ZOOKEEPER_SECRET).toAbsolutePath();
            SecretFile.createIfMissing(secret);
            ControllerServer controller = ControllerServer.start(new ControllerConfig(zookeeper.connectString(), CONTROLLER_BIND, controllerPort, statusPort,
                    null, null, null, secret));
            parts.push(controller);
            ControllerProcesses others = ControllerProcesses.start(controllers - 1, zookeeper.connectString(), secret, CONTROLLER_BIND,
                    next(controllerPort), next(statusPort), log.toAbsolutePath().getParent());
            parts.push(others);
            children = others.children();
            controllerTarget = base.localHost() + ":" + controller.grpcPort();
            statusPage = "http://" + CONTROLLER_BIND + ":" + controller.statusPort() + "/";
            createDemo(controllerTarget, base.bind(), ports);

            Links links;
            if (noWan) {
                links = (name, target, config) -> address(target);
            } else {
                WanEmulator emulator = new WanEmulator();
                parts.push(emulator);
                links = (name, target, config) -> address(emulator.addLink(name, new InetSocketAddress(target.getHostString(), 0), target, config).listenAddress());
            }
            String toSecond = links.to(FIRST + "->" + SECOND, new InetSocketAddress(base.localHost(), ports[4]), wan);
            String toFirst = links.to(SECOND + "->" + FIRST, new InetSocketAddress(base.localHost(), ports[1]), wan);
            List<String> controllerTargets = new ArrayList<>(children.stream().map(ControllerProcesses.Child::target).toList());
            controllerTargets.add(controllerTarget);
            String firstToController = controllerLinks(links, FIRST, controllerTargets, LinkConfig.direct());
            String secondToController = controllerLinks(links, SECOND, controllerTargets, wan);

            // Each site takes incoming migrations on ports of its own (taiwan's follow virginia's), each behind a link of the WAN.
            SiteConfig firstConfig = base.forSite(FIRST, base.dataDir().resolve(FIRST), ports[0], ports[1], ports[2], firstToController,
                    Map.of(SECOND, toSecond));
            SiteConfig secondConfig = base.forSite(SECOND, base.dataDir().resolve(SECOND), ports[3], ports[4], ports[5], secondToController,
                    Map.of(FIRST, toFirst)).withMigration(base.migrationPort() + base.migrationPorts(), Map.of());
            firstConfig = firstConfig.withMigration(base.migrationPort(), Map.of(SECOND, migrationLinks(links, FIRST, secondConfig, wan)));
            secondConfig = secondConfig.withMigration(secondConfig.migrationPort(), Map.of(FIRST, migrationLinks(links, SECOND, firstConfig, wan)));
            first = new StorageServer(firstConfig);
            parts.push(first);
            second = new StorageServer(secondConfig);
            parts.push(second);
            // The driver sits with the controller at virginia: its calls to taiwan cross the link, as they would across the WAN.
            DriverHost driver = new DriverHost(controllerTarget, Map.of(SECOND, toSecond), DriverConfig.DEFAULT);
            parts.push(driver);
            controller.addService(driver.service());
            parts.push(scheduler.start(controller, driver, controllerTarget, base.dataDir().resolve("plugins")));
        } catch (Exception e) {
            all.close();
            throw PortsInUse.explain(e, listening);
        }
        String allControllers = String.join(",", children.stream().map(ControllerProcesses.Child::target).toList())
                + (children.isEmpty() ? "" : ",") + controllerTarget;
        ClientConfig.save(allControllers);
        printBanner(base, allControllers, children, statusPage, first, second, log);
        return Running.untilStopped(all);
    }

    /** The port after {@code port}, for the next controller; 0 (a free one) stays 0. */
    private static int next(int port) {
        return port == 0 ? 0 : port + 1;
    }

    /** Links from site {@code from} to each controller, in their order, as {@code --controller} lists them. */
    private static String controllerLinks(Links links, String from, List<String> targets, LinkConfig config) {
        List<String> addresses = new ArrayList<>();
        for (String target : targets) {
            int colon = target.lastIndexOf(':');
            InetSocketAddress address = new InetSocketAddress(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)));
            addresses.add(links.to(from + "->" + (targets.size() == 1 ? "controller" : "controller " + target), address, config));
        }
        return String.join(",", addresses);
    }

    /** Where a site dials to reach {@code target}: a link of the emulated WAN named {@code name}, or the target itself with --no-wan. */
    @FunctionalInterface
    private interface Links {
        String to(String name, InetSocketAddress target, LinkConfig config);
    }

    /** What listens where: {@code ports} are NBD, gRPC and metrics of virginia, then of taiwan. */
    private List<ServerPort> serverPorts(String bind, int[] ports) {
        List<ServerPort> listening = new ArrayList<>(siteAndControllerPorts(bind, ports));
        for (int i = 1; i < controllers; i++) {
            if (controllerPort != 0) {
                listening.add(new ServerPort("controller " + (i + 1) + " gRPC", CONTROLLER_BIND, controllerPort + i, "--controller-port"));
            }
            if (statusPort != 0) {
                listening.add(new ServerPort("controller " + (i + 1) + " status page", CONTROLLER_BIND, statusPort + i, "--status-port"));
            }
        }
        return listening;
    }

    private List<ServerPort> siteAndControllerPorts(String bind, int[] ports) {
        return List.of(new ServerPort("controller gRPC", CONTROLLER_BIND, controllerPort, "--controller-port"),
                new ServerPort("controller status page", CONTROLLER_BIND, statusPort, "--status-port"),
                new ServerPort(FIRST + " NBD", bind, ports[0], "--nbd-port"),
                new ServerPort(FIRST + " gRPC", bind, ports[1], "--grpc-port"),
                new ServerPort(FIRST + " metrics", bind, ports[2], "--metrics-port"),
                new ServerPort(SECOND + " NBD", bind, ports[3], "--nbd-port"),
                new ServerPort(SECOND + " gRPC", bind, ports[4], "--grpc-port"),
                new ServerPort(SECOND + " metrics", bind, ports[5], "--metrics-port"));
    }

    /**
     * Creates the demo image unless it exists, before any site listens: a client that
     * connects as soon as a site's NBD port accepts finds it. Its home, virginia, is
     * registered first, with the addresses the site registers again when it joins.
     */
    private void createDemo(String controllerTarget, String bind, int[] ports) {
        try (CatalogClient catalog = new CatalogClient(controllerTarget)) {
            catalog.registerSite(FIRST, bind + ":" + ports[1], bind + ":" + ports[0]);
            ImageSpec.createMissing(List.of(new ImageSpec(DEMO, demoSize)), (name, size) -> catalog.create(name, size, demoReplication()));
        }
    }

    /** Proactive, homed at virginia, its VM expected to move back and forth between the two sites. */
    private static ReplicationSettings demoReplication() {
        return ReplicationSettings.newBuilder()
                .setHome(FIRST)
                .setTransitions(TransitionTable.newBuilder().addSites(FIRST).addSites(SECOND).addAllProbabilities(List.of(0.0, 1.0, 1.0, 0.0)))
                .build();
    }

    private void printBanner(SiteConfig base, String controller, List<ControllerProcesses.Child> children, String statusPage, StorageServer first,
            StorageServer second, Path log) {
        String host = base.localHost();
        System.out.println("Heliotrope is up: sites " + FIRST + " and " + SECOND + ", " + (noWan ? "joined directly (no emulated WAN)"
                : wanRtt + " round trip and " + wanBandwidth + " between them") + "; data in " + base.dataDir());
        for (StorageServer server : List.of(first, second)) {
            String name = server.config().site();
            System.out.println(String.format("  %-9s: nbd://%s:%d/%s   gRPC %s:%d   metrics http://%s:%d/metrics",
                    name, host, server.nbdAddress().getPort(), DEMO, host, server.grpcPort(), host, server.metricsPort()));
        }
        System.out.println("  demo image : nbd://" + host + ":" + first.nbdAddress().getPort() + "/" + DEMO);
        if (base.tls() != TlsMode.OFF) {
            System.out.println("  over TLS   : " + NbdsUri.of(host, first.nbdAddress().getPort(), DEMO, base.tlsDir().toAbsolutePath().toString())
                    + "   (qemu: --object tls-creds-x509,id=tls0,dir=" + base.tlsDir().toAbsolutePath() + ",endpoint=client)");
        }
        System.out.println("  controller : " + controller + "   (helio status, helio image show " + DEMO + ")");
        for (ControllerProcesses.Child child : children) {
            System.out.println("               " + child.target() + " is pid " + child.pid() + ", log " + child.log() + ": kill -9 " + child.pid()
                    + " and the sites go on through the next one");
        }
        System.out.println("  status     : " + statusPage + "   (the live status page; its JSON under /api, metrics on /metrics)");
        System.out.println("  metrics    : http://" + host + ":" + first.metricsPort() + "/metrics");
        System.out.println("  log        : " + log);
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

    /** Links from site {@code from} to each of {@code to}'s migration ports, as {@code --peer-migration} lists them. */
    private static String migrationLinks(Links links, String from, SiteConfig to, LinkConfig config) {
        List<String> addresses = new ArrayList<>();
        for (int port : to.incomingMigrationPorts()) {
            addresses.add(links.to(from + "->" + to.site() + " migration " + port, new InetSocketAddress(to.localHost(), port), config));
        }
        return String.join(",", addresses);
    }

    private static String address(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    /**
     * NBD, gRPC and metrics ports of virginia, then of taiwan: the given ones, taiwan's one
     * more, or free ones where 0 was given (the links must know them before the sites start).
     * Free ones are held together while they are chosen, so that none is chosen twice.
     */
    private static int[] sitePorts(SiteConfig base) throws IOException {
        int[] given = {base.nbdPort(), base.grpcPort(), base.metricsPort()};
        int[] ports = new int[2 * given.length];
        List<ServerSocket> probes = new ArrayList<>();
        try {
            for (int i = 0; i < ports.length; i++) {
                int port = given[i % given.length];
                if (port == 0) {
                    ServerSocket probe = new ServerSocket(0);
                    probes.add(probe);
                    port = probe.getLocalPort();
                } else {
                    port += i / given.length;
                }
                ports[i] = port;
            }
        } finally {
            for (ServerSocket probe : probes) {
                probe.close();
            }
        }
        return ports;
    }

    private static void closeQuietly(AutoCloseable part) {
        try {
            part.close();
        } catch (Exception e) {
            System.err.println("helio: while stopping: " + e);
        }
    }
}
