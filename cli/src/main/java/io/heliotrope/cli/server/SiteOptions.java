package io.heliotrope.cli.server;

import io.heliotrope.cli.print.DurationConverter;
import io.heliotrope.cli.print.Sizes;
import io.heliotrope.nbd.tls.TlsMode;
import io.heliotrope.storage.pull.PullOrder;
import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.SiteConfigLoader;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** The options that configure a site, shared by {@code serve} and {@code up}; flags win over the YAML file. */
public final class SiteOptions {
    @Option(names = "--config", paramLabel = "FILE", description = "YAML site configuration; flags given here override it.")
    Path config;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Where the RocksDB block store lives.")
    Path dataDir;

    @Option(names = "--site", paramLabel = "NAME", description = "Name of this site (default: local).")
    String site;

    @Option(names = "--store", paramLabel = "KIND", description = "Block store: rocksdb (default, durable) or memory (lost on exit).")
    SiteConfig.StoreKind store;

    @Option(names = "--bind", paramLabel = "HOST", description = "Address to listen on (default: 127.0.0.1).")
    String bind;

    @Option(names = "--nbd-port", paramLabel = "PORT", description = "NBD port (default: " + SiteConfig.DEFAULT_NBD_PORT + ").")
    Integer nbdPort;

    @Option(names = "--grpc-port", paramLabel = "PORT", description = "gRPC admin port (default: " + SiteConfig.DEFAULT_GRPC_PORT + ").")
    Integer grpcPort;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Prometheus /metrics port (default: " + SiteConfig.DEFAULT_METRICS_PORT + ").")
    Integer metricsPort;

    @Option(names = "--io-threads", paramLabel = "N", description = "Threads that run block store calls; 0 runs them on the NBD event loops, which is faster "
            + "on a disk too (default: 0).")
    Integer ioThreads;

    @Option(names = "--nbd-poll", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long an NBD event loop polls for the next request before it sleeps, while requests come closer together "
                    + "than that: lower latency for clients with one request in flight, at the cost of a busy CPU meanwhile; 0s never polls (default: 50us).")
    Duration nbdPoll;

    @Option(names = "--controller", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "Join the controller there, or the controllers of one ZooKeeper ensemble: calls go to the next one, in order, "
                    + "when the one in use stops answering (default: run standalone).")
    String controller;

    @Option(names = "--checkpoint-interval", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How often dirty block metadata goes to the controller while an image is open (default: 5s).")
    Duration checkpointInterval;

    @Option(names = "--checkpoint-blocks", paramLabel = "N", description = "Blocks written since the last checkpoint that start one early (default: 65536).")
    Long checkpointBlocks;

    @Option(names = "--lease-hold", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long an image open for write holds its reads and writes, neither served nor failed, when no renewal of its "
                    + "lease reaches a controller in time (ZooKeeper's quorum lost, every controller down), before they fail with EIO; "
                    + "they go on as soon as a renewal succeeds (default: 60s; 0s fails them at once).")
    Duration leaseHold;

    @Option(names = "--open-wait", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long opening an image waits for another site to close it and release its write lease (default: 10s).")
    Duration openWait;

    @Option(names = "--peer", paramLabel = "SITE=HOST:PORT",
            description = "Dial this address for that site's peer service instead of the one it registered (a WAN link, a NAT); repeatable.")
    Map<String, String> peers;

    @Option(names = "--fetch-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a read waits for blocks from other sites before it fails with EIO (default: 10s).")
    Duration fetchTimeout;

    @Option(names = "--peer-connections", paramLabel = "N",
            description = "TCP connections to each other site; one carries at most its window per round trip (default: 4).")
    Integer peerConnections;

    @Option(names = "--peer-bulk-connections", paramLabel = "N",
            description = "More TCP connections to each other site that carry only background pulls, so that reads never queue behind "
                    + "them (default: " + SiteConfig.DEFAULT_PEER_BULK_CONNECTIONS + ").")
    Integer peerBulkConnections;

    @Option(names = "--pull-order", paramLabel = "ORDER",
            description = "The order in which a new holder pulls the blocks it lacks: heat (the neighbours of its own misses, then what "
                    + "the previous holder used most, then the rest) or block (block order) (default: heat).")
    PullOrder pullOrder;

    @Option(names = "--handoff-boost", negatable = true,
            description = "Whether a live migration's destination has the source push the blocks it lacks before the switchover; "
                    + "--no-handoff-boost leaves them to the image's mode, as in the paper's experiments (default: on).")
    Boolean handoffBoost;

    @Option(names = "--migration-port", paramLabel = "PORT",
            description = "The first port incoming live migrations listen on (default: " + SiteConfig.DEFAULT_MIGRATION_PORT + ").")
    Integer migrationPort;

    @Option(names = "--migration-ports", paramLabel = "N",
            description = "How many incoming live migrations this site takes at once, one port each from --migration-port on (default: "
                    + SiteConfig.DEFAULT_MIGRATION_PORTS + ").")
    Integer migrationPorts;

    @Option(names = "--peer-migration", paramLabel = "SITE=HOST:PORT[,HOST:PORT...]",
            description = "Where this site reaches that site's migration ports, in their order (its host and ports, or WAN links in front "
                    + "of them); repeatable; a VM moves only to sites named here.")
    Map<String, String> peerMigration;

    @Option(names = "--qemu", paramLabel = "PROGRAM", description = "The QEMU that runs VMs here (default: qemu-system-x86_64).")
    String qemu;

    @Option(names = "--vm-memory", paramLabel = "SIZE", converter = Sizes.class,
            description = "Memory this site gives its VMs all together, e.g. 64G; the scheduler places no more here (default: 0, no limit).")
    Long vmMemoryBytes;

    @Option(names = "--intra-site-rtt", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "The round trip between two hosts of this site, what the scheduler counts between VMs placed together "
                    + "(default: 1ms).")
    Duration intraSiteRtt;

    @Option(names = "--tls", paramLabel = "MODE",
            description = "NBD over TLS (NBD_OPT_STARTTLS): off, on (clients may; plaintext ones still connect) or require (nothing is listed "
                    + "or opened before TLS) (default: off; helio up: on).")
    TlsMode tls;

    @Option(names = "--tls-dir", paramLabel = "DIR",
            description = "The NBD server's certificates: ca-cert.pem, server-cert.pem, server-key.pem and optionally ca-crl.pem, as "
                    + "`helio cert issue-site` writes them and nbdkit, qemu and libnbd read them.")
    Path tlsDir;

    @Option(names = "--tls-authz", paramLabel = "FILE",
            description = "Which client certificates may open which images over NBD: lines of 'IDENTITY IMAGE-GLOB ro|rw' (needs --tls require; "
                    + "default: every certificate of the CA, every image).")
    Path tlsAuthz;

    /** Whether {@code --tls off} was given: {@code helio up} then serves NBD without TLS. */
    public boolean tlsTurnedOff() {
        return tls == TlsMode.OFF;
    }

    public SiteConfig load(Path defaultDataDir) {
        Map<String, Object> overrides = new HashMap<>();
        overrides.put("dataDir", dataDir);
        overrides.put("site", site);
        overrides.put("store", store);
        overrides.put("bind", bind);
        overrides.put("nbdPort", nbdPort);
        overrides.put("grpcPort", grpcPort);
        overrides.put("metricsPort", metricsPort);
        overrides.put("ioThreads", ioThreads);
        overrides.put("nbdPoll", nbdPoll);
        overrides.put("controller", controller);
        overrides.put("checkpointInterval", checkpointInterval);
        overrides.put("checkpointBlocks", checkpointBlocks);
        overrides.put("openWait", openWait);
        overrides.put("peers", peers);
        overrides.put("fetchTimeout", fetchTimeout);
        overrides.put("peerConnections", peerConnections);
        overrides.put("migrationPort", migrationPort);
        overrides.put("migrationPorts", migrationPorts);
        overrides.put("peerMigration", peerMigration);
        overrides.put("qemu", qemu);
        overrides.put("vmMemoryBytes", vmMemoryBytes);
        overrides.put("intraSiteRtt", intraSiteRtt);
        overrides.put("peerBulkConnections", peerBulkConnections);
        overrides.put("pullOrder", pullOrder);
        overrides.put("handoffBoost", handoffBoost);
        overrides.put("leaseHold", leaseHold);
        overrides.put("tls", tls);
        overrides.put("tlsDir", tlsDir);
        overrides.put("tlsAuthz", tlsAuthz);
        if (config == null && dataDir == null) {
            overrides.put("dataDir", defaultDataDir);
        }
        return SiteConfigLoader.load(config, overrides);
    }
}
