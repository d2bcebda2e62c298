package io.heliotrope.storage.server;

import java.nio.file.Path;
import java.time.Duration;

import static java.util.Objects.requireNonNullElse;

/**
 * How one site runs. Loaded from YAML by {@link SiteConfigLoader}; every field has a
 * default but {@code dataDir}, which the RocksDB store needs. A port of 0 picks a free one.
 * With {@code controller} (host:port) the site joins that controller as {@code site};
 * without, it runs standalone and owns its catalog.
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
        Long blockCacheBytes,
        String controller,
        Duration checkpointInterval,
        Long checkpointBlocks) {
    public static final int DEFAULT_NBD_PORT = 10809;
    public static final int DEFAULT_GRPC_PORT = 7410;
    public static final int DEFAULT_METRICS_PORT = 9410;

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
        // More threads than cores only adds context switches: each connection's calls run one at a time anyway.
        ioThreads = requireNonNullElse(ioThreads, Math.min(4, Runtime.getRuntime().availableProcessors()));
        blockCacheBytes = requireNonNullElse(blockCacheBytes, 256L << 20);
        checkpointInterval = requireNonNullElse(checkpointInterval, Duration.ofSeconds(5));
        checkpointBlocks = requireNonNullElse(checkpointBlocks, 65_536L);
        if (checkpointInterval.isNegative() || checkpointInterval.isZero() || checkpointBlocks < 1) {
            throw new IllegalArgumentException("checkpointInterval and checkpointBlocks must be positive");
        }
        if (store == StoreKind.ROCKSDB && dataDir == null) {
            throw new IllegalArgumentException("dataDir is required for the rocksdb store");
        }
        for (int port : new int[] {nbdPort, grpcPort, metricsPort}) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads must be at least 1: " + ioThreads);
        }
    }
}
