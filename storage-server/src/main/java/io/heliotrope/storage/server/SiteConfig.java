package io.heliotrope.storage.server;

import java.nio.file.Path;

import static java.util.Objects.requireNonNullElse;

/**
 * How one site runs. Loaded from YAML by {@link SiteConfigLoader}; every field has a
 * default but {@code dataDir}, which the RocksDB store needs. A port of 0 picks a free one.
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
        Long blockCacheBytes) {
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
        ioThreads = requireNonNullElse(ioThreads, 4);
        blockCacheBytes = requireNonNullElse(blockCacheBytes, 256L << 20);
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
