package io.heliotrope.cli.server;

import io.heliotrope.cli.print.DurationConverter;
import io.heliotrope.controller.server.ControllerConfig;
import io.heliotrope.controller.server.ControllerServer;
import io.heliotrope.scheduler.migration.DriverConfig;
import io.heliotrope.scheduler.migration.grpc.DriverHost;
import io.heliotrope.scheduler.decision.grpc.SchedulerHost;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "controller",
        mixinStandardHelpOptions = true,
        description = {"Run a meta-controller: site registry, image catalog, write leases and block metadata,",
                "all kept in ZooKeeper. Run as many as you like against one ensemble; any may stop."})
public final class ControllerCommand implements Callable<Integer> {
    @Option(names = "--zookeeper", required = true, paramLabel = "CONNECT", description = "ZooKeeper connect string, e.g. zk1:2181,zk2:2181,zk3:2181.")
    String zookeeper;

    @Option(names = "--bind", paramLabel = "HOST", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String bind;

    @Option(names = "--grpc-port", paramLabel = "PORT", defaultValue = "" + ControllerConfig.DEFAULT_GRPC_PORT, description = "gRPC port (default: ${DEFAULT-VALUE}; 0 picks one).")
    int grpcPort;

    @Option(names = "--status-port", paramLabel = "PORT", defaultValue = "" + ControllerConfig.DEFAULT_STATUS_PORT,
            description = "HTTP port of the status page, its JSON API and /metrics (default: ${DEFAULT-VALUE}; 0 picks one).")
    int statusPort;

    @Option(names = "--lease-ttl", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "15s",
            description = "How long a write lease lasts unless its holder renews it (default: ${DEFAULT-VALUE}).")
    Duration leaseTtl;

    @Option(names = "--zookeeper-session-timeout", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "15s",
            description = {"How long ZooKeeper waits for this controller before it ends its session: its scheduler then",
                    "stops deciding and another controller's takes over (default: ${DEFAULT-VALUE})."})
    Duration sessionTimeout;

    @Option(names = "--zookeeper-auth-file", paramLabel = "FILE",
            description = {"The cluster's ZooKeeper secret: one line, readable by its owner only, the same for every controller",
                    "(helio up makes one in its data directory). Every znode under /heliotrope is then the controllers' alone",
                    "(digest ACL); an open tree is secured at the first start. Without it, anyone who reaches ZooKeeper may change it."})
    Path zookeeperAuthFile;

    @Mixin
    SchedulerOptions scheduler;

    @Option(names = "--log-file", paramLabel = "FILE",
            description = "Where the full log goes, rolled over at 50 MiB (default: ~/.local/state/heliotrope/logs/controller-PORT.log); "
                    + "the console shows our events and the libraries' warnings.")
    Path logFile;

    @Override
    public Integer call() throws Exception {
        List<ServerPort> listening = List.of(new ServerPort("controller gRPC", bind, grpcPort, "--grpc-port"),
                new ServerPort("controller status page", bind, statusPort, "--status-port"));
        PortsInUse.check(listening);
        Path log = logFile != null ? logFile : StateDirectory.resolve("logs").resolve("controller-" + grpcPort + ".log");
        Logging.consoleAndFile(log);
        ControllerServer server;
        try {
            server = ControllerServer.start(new ControllerConfig(zookeeper, bind, grpcPort, statusPort, leaseTtl, sessionTimeout, null, zookeeperAuthFile));
        } catch (IOException | RuntimeException e) {
            throw PortsInUse.explain(e, listening);
        }
        String address = bind + ":" + server.grpcPort();
        DriverHost driver = new DriverHost(address, Map.of(), DriverConfig.DEFAULT);
        server.addService(driver.service());
        SchedulerHost decisions;
        try {
            decisions = scheduler.start(server, driver, address, SchedulerOptions.defaultPlugins());
        } catch (RuntimeException e) {
            driver.close();
            server.close();
            throw e;
        }
        // One println a line: printf writes a line in pieces, and the scheduler's first log line (elected) may come between them.
        System.out.println(String.format("controller listening on %s:%d (ZooKeeper %s, lease TTL %s), status page http://%s:%d/; log in %s",
                bind, server.grpcPort(), zookeeper, leaseTtl, bind, server.statusPort(), log));
        System.out.println("scheduler beside it: policies from " + scheduler.plugins(SchedulerOptions.defaultPlugins())
                + "; one controller's scheduler decides at a time (helio scheduler status)");
        System.out.flush();
        // The scheduler stops first, then the driver: a migration it drives may still call the controller while it ends.
        return Running.untilStopped(() -> {
            try (server; driver) {
                decisions.close();
            }
        });
    }
}
