package io.heliotrope.storage.server;

import io.heliotrope.nbd.server.NbdServerConfig;
import io.heliotrope.nbd.tls.TlsMode;
import io.heliotrope.storage.pull.PullOrder;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static java.util.Objects.requireNonNullElse;

/**
 * How one site runs. Loaded from YAML by {@link SiteConfigLoader}; every field has a
 * default but {@code dataDir}, which the RocksDB store needs. A port of 0 picks a free one.
 * With {@code controller} (host:port, or several, comma-separated: the controllers of one
 * ZooKeeper ensemble, tried in that order, the next one when the one in use stops
 * answering) the site joins them as {@code site}; without, it runs standalone and owns its
 * catalog. The YAML file may also give the controllers as a list. {@code leaseHold} is how long
 * an image open for write here holds its reads and writes, neither served nor failed, when no
 * renewal of its lease reaches a controller in time (ZooKeeper's quorum lost, every controller
 * down) before they fail with EIO (default 60 s; 0 fails them at once). {@code openWait} bounds how long an
 * open waits for another site to release the image's write lease (default 10 s).
 * {@code peers} gives, per site name, the host:port this site dials for that site's peer
 * service instead of the address the site registered (a WAN emulator's link, a NAT);
 * {@code fetchTimeout} bounds how long a read waits for blocks from other sites before it
 * fails (default 10 s), and {@code peerConnections} is how many connections carry the
 * traffic to each site (default 4: one TCP connection over a WAN carries at most its
 * window per round trip, 6 MiB / 75 ms = 84 MB/s, less than a 1 Gbit/s link).
 * {@code peerBulkConnections} more (default 2) carry background pulls only, so that a
 * foreground read's fetch never queues behind them; {@code pullOrder} is the order a pull
 * takes the blocks in (default {@code heat}: hottest first; {@code block}: block order).
 *
 * <p>The site runs VMs (its QEMU runner keeps them under {@code dataDir/vms}) and takes
 * incoming live migrations on {@code migrationPorts} ports from {@code migrationPort} on
 * (default 4 from 7420), one migration each. {@code peerMigration} gives, per site name,
 * the comma-separated host:port list through which this site reaches that site's
 * migration ports, in their order (the WAN emulator's links, or the site's own host and
 * ports); a VM cannot move to a site it has none for. {@code qemu} is the QEMU to
 * run (default {@code qemu-system-x86_64}). With {@code handoffBoost} (the default) a handoff's
 * destination has the source push the blocks it lacks before the switchover; without, they
 * come as the image's mode brings them (the paper's arms of the DBENCH experiment).
 *
 * <p>For the scheduler's placements the site registers {@code vmMemoryBytes}, the memory it
 * gives its VMs all together (default 0: no limit), and {@code intraSiteRtt}, the round trip
 * between two of its hosts, L(x, x) of the RTT matrix (default 1 ms).
 *
 * <p>{@code tls} is whether NBD clients may ({@code on}) or must ({@code require}) turn their
 * connections into TLS (default {@code off}), with the certificates of {@code tlsDir} (the
 * layout of nbdkit, qemu and libnbd: ca-cert.pem, server-cert.pem, server-key.pem,
 * optionally ca-crl.pem); {@code tlsAuthz}, which needs {@code require}, is the file of
 * {@code IDENTITY IMAGE-GLOB ro|rw} lines saying which client certificates may open which
 * images (default: every certificate of the CA, every image).
 */
public record SiteConfig(
        String site,
        Path dataDir,
        StoreKind store,
        String bind,
        Integer nbdPort,
        Integer grpcPort,
        Integer metricsPort,
        Integer ioThreads,
        Duration nbdPoll,
        Long blockCacheBytes,
        String controller,
        Duration checkpointInterval,
        Long checkpointBlocks,
        Duration openWait,
        Map<String, String> peers,
        Duration fetchTimeout,
        Integer peerConnections,
        Integer migrationPort,
        Integer migrationPorts,
        Map<String, String> peerMigration,
        String qemu,
        Long vmMemoryBytes,
        Duration intraSiteRtt,
        PullOrder pullOrder,
        Integer peerBulkConnections,
        Boolean handoffBoost,
        Duration leaseHold,
        TlsMode tls,
        Path tlsDir,
        Path tlsAuthz) {
    public static final Duration DEFAULT_INTRA_SITE_RTT = Duration.ofMillis(1);
    public static final int DEFAULT_NBD_PORT = 10809;
    public static final int DEFAULT_GRPC_PORT = 7410;
    public static final int DEFAULT_METRICS_PORT = 9410;
    public static final int DEFAULT_MIGRATION_PORT = 7420;
    public static final int DEFAULT_MIGRATION_PORTS = 4;
    /**
     * Connections to each peer that carry background pulls, beside the {@code peerConnections}
     * of foreground fetches and pushes: two windows of 6 MiB carry 168 MB/s across a 75 ms round
     * trip, more than 1 Gbit/s.
     */
    public static final int DEFAULT_PEER_BULK_CONNECTIONS = 2;
    public static final Duration DEFAULT_LEASE_HOLD = Duration.ofSeconds(60);

    /**
     * Threads for block store calls; 0, the default, runs them on the NBD event loops. The
     * store's reads and writes go to the page cache and do not wait on the network, and a
     * hand-off to another thread costs more than it overlaps, on a disk too (random 4 KiB
     * over NBD, data on ext4, QD32: writes 46K/s with two threads, 70K/s on the event
     * loops; reads 76K/s and 138K/s).
     */
    public int storeThreads() {
        return requireNonNullElse(ioThreads, 0);
    }

    /** The controllers' addresses, in the order they are tried; empty for a standalone site. */
    public List<String> controllers() {
        return controller == null ? List.of() : addresses(controller);
    }

    /**
     * The host:port addresses of a comma-separated list, e.g. {@code a:7400,b:7400}; fails with
     * {@code IllegalArgumentException} naming the first that is not one.
     */
    public static List<String> addresses(String list) {
        List<String> addresses = Arrays.stream(list.split(",", -1)).map(String::strip).toList();
        for (String address : addresses) {
            int colon = address.lastIndexOf(':');
            if (colon <= 0 || !address.substring(colon + 1).matches("\\d{1,5}")) {
                throw new IllegalArgumentException("'" + address + "' in '" + list + "' is not HOST:PORT");
            }
        }
        return addresses;
    }

    /** The host a client on this machine dials: the bind address, or loopback when the site binds every interface. */
    public String localHost() {
        return bind.equals("0.0.0.0") ? "127.0.0.1" : bind;
    }

    /** This configuration for another site of the same machine: its own name, data, ports, controller address and peer addresses. */
    public SiteConfig forSite(String name, Path data, int nbd, int grpc, int metrics, String controllerAddress, Map<String, String> peerAddresses) {
        return new SiteConfig(name, data, store, bind, nbd, grpc, metrics, ioThreads, nbdPoll, blockCacheBytes, controllerAddress, checkpointInterval,
                checkpointBlocks, openWait, peerAddresses, fetchTimeout, peerConnections, migrationPort, migrationPorts, peerMigration, qemu, vmMemoryBytes,
                intraSiteRtt, pullOrder, peerBulkConnections, handoffBoost, leaseHold, tls, tlsDir, tlsAuthz);
    }

    /** This configuration with incoming migrations on the ports from {@code firstPort} on, and these links to other sites' migration ports. */
    public SiteConfig withMigration(int firstPort, Map<String, String> peerLinks) {
        return new SiteConfig(site, dataDir, store, bind, nbdPort, grpcPort, metricsPort, ioThreads, nbdPoll, blockCacheBytes, controller,
                checkpointInterval, checkpointBlocks, openWait, peers, fetchTimeout, peerConnections, firstPort, migrationPorts, peerLinks, qemu,
                vmMemoryBytes, intraSiteRtt, pullOrder, peerBulkConnections, handoffBoost, leaseHold, tls, tlsDir, tlsAuthz);
    }

    /** This configuration with NBD over TLS in {@code mode}, from the certificates of {@code dir}. */
    public SiteConfig withNbdTls(TlsMode mode, Path dir) {
        return new SiteConfig(site, dataDir, store, bind, nbdPort, grpcPort, metricsPort, ioThreads, nbdPoll, blockCacheBytes, controller,
                checkpointInterval, checkpointBlocks, openWait, peers, fetchTimeout, peerConnections, migrationPort, migrationPorts, peerMigration, qemu,
                vmMemoryBytes, intraSiteRtt, pullOrder, peerBulkConnections, handoffBoost, leaseHold, mode, dir, tlsAuthz);
    }

    /** The local ports incoming migrations listen on. */
    public List<Integer> incomingMigrationPorts() {
        return IntStream.range(migrationPort, migrationPort + migrationPorts).boxed().toList();
    }

    public enum StoreKind {
        ROCKSDB,
        MEMORY
    }

    public SiteConfig {
        site = requireNonNullElse(site, "local");
        store = requireNonNullElse(store, StoreKind.ROCKSDB);
        bind = requireNonNullElse(bind, "127.0.0.1");
        nbdPort = requireNonNullElse(nbdPort, DEFAULT_NBD_PORT);
        grpcPort = requireNonNullElse(grpcPort, DEFAULT_GRPC_PORT);
        metricsPort = requireNonNullElse(metricsPort, DEFAULT_METRICS_PORT);
        nbdPoll = requireNonNullElse(nbdPoll, NbdServerConfig.DEFAULT_POLL);
        blockCacheBytes = requireNonNullElse(blockCacheBytes, 256L << 20);
        checkpointInterval = requireNonNullElse(checkpointInterval, Duration.ofSeconds(5));
        checkpointBlocks = requireNonNullElse(checkpointBlocks, 65_536L);
        openWait = requireNonNullElse(openWait, Duration.ofSeconds(10));
        peers = Map.copyOf(requireNonNullElse(peers, Map.of()));
        fetchTimeout = requireNonNullElse(fetchTimeout, Duration.ofSeconds(10));
        peerConnections = requireNonNullElse(peerConnections, 4);
        migrationPort = requireNonNullElse(migrationPort, DEFAULT_MIGRATION_PORT);
        migrationPorts = requireNonNullElse(migrationPorts, DEFAULT_MIGRATION_PORTS);
        peerMigration = Map.copyOf(requireNonNullElse(peerMigration, Map.of()));
        qemu = requireNonNullElse(qemu, "qemu-system-x86_64");
        vmMemoryBytes = requireNonNullElse(vmMemoryBytes, 0L);
        intraSiteRtt = requireNonNullElse(intraSiteRtt, DEFAULT_INTRA_SITE_RTT);
        pullOrder = requireNonNullElse(pullOrder, PullOrder.HEAT);
        peerBulkConnections = requireNonNullElse(peerBulkConnections, DEFAULT_PEER_BULK_CONNECTIONS);
        handoffBoost = requireNonNullElse(handoffBoost, true);
        leaseHold = requireNonNullElse(leaseHold, DEFAULT_LEASE_HOLD);
        tls = requireNonNullElse(tls, TlsMode.OFF);
        if (tls != TlsMode.OFF && tlsDir == null) {
            throw new IllegalArgumentException("tls: " + tls + " needs tlsDir, a directory with ca-cert.pem, server-cert.pem and server-key.pem");
        }
        if (tlsAuthz != null && tls != TlsMode.REQUIRE) {
            throw new IllegalArgumentException("tlsAuthz needs tls: require (with tls: " + tls + " a plaintext client would pass by it)");
        }
        if (leaseHold.isNegative() || leaseHold.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("leaseHold must be between 0s and 1h: " + leaseHold);
        }
        if (vmMemoryBytes < 0) {
            throw new IllegalArgumentException("vmMemoryBytes must be 0 (no limit) or more: " + vmMemoryBytes);
        }
        if (intraSiteRtt.compareTo(Duration.ofNanos(1000)) < 0 || intraSiteRtt.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("intraSiteRtt must be between 1us and 10s: " + intraSiteRtt);
        }
        if (migrationPorts < 1 || migrationPort < 1 || migrationPort + migrationPorts > 65536) {
            throw new IllegalArgumentException("migration ports must be a range of at least one port between 1 and 65535: "
                    + migrationPorts + " from " + migrationPort);
        }
        if (fetchTimeout.isNegative() || fetchTimeout.isZero() || peerConnections < 1 || peerBulkConnections < 1) {
            throw new IllegalArgumentException("fetchTimeout, peerConnections and peerBulkConnections must be positive");
        }
        if (nbdPoll.isNegative() || nbdPoll.compareTo(NbdServerConfig.MAX_POLL) > 0) {
            throw new IllegalArgumentException("nbdPoll must be between 0s and " + NbdServerConfig.MAX_POLL.toSeconds() + "s: " + nbdPoll);
        }
        if (checkpointInterval.isNegative() || checkpointInterval.isZero() || checkpointBlocks < 1) {
            throw new IllegalArgumentException("checkpointInterval and checkpointBlocks must be positive");
        }
        if (openWait.isNegative() || openWait.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("openWait must be between 0s and 10m: " + openWait);
        }
        if (store == StoreKind.ROCKSDB && dataDir == null) {
            throw new IllegalArgumentException("dataDir is required for the rocksdb store");
        }
        for (int port : new int[] {nbdPort, grpcPort, metricsPort}) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
        if (controller != null) {
            addresses(controller);
        }
        if (ioThreads != null && ioThreads < 0) {
            throw new IllegalArgumentException("ioThreads must be 0 (store calls on the NBD event loops) or more: " + ioThreads);
        }
    }
}
