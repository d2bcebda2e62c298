package io.heliotrope.controller.server;

import io.heliotrope.controller.service.ControllerServiceConfig;

import java.nio.file.Path;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How one controller process runs. Null or zero values take the defaults: bind
 * 127.0.0.1, lease TTL and ZooKeeper session timeout 15 s, root {@code /heliotrope}.
 * A port of 0 picks a free one (the command line's defaults are {@value #DEFAULT_GRPC_PORT}
 * for gRPC and {@value #DEFAULT_STATUS_PORT} for the status port: metrics, JSON and the
 * status page). Both listen on {@code bindAddress} only. With a {@code zookeeperAuthFile}
 * (its {@link io.heliotrope.controller.zookeeper.SecretFile}) every znode under the root is the
 * controllers' only; without one it is open to anyone, as before issue #27.
 */
public record ControllerConfig(
        String zookeeperConnect,
        String bindAddress,
        int grpcPort,
        int statusPort,
        Duration leaseTtl,
        Duration zookeeperSessionTimeout,
        String rootPath,
        Path zookeeperAuthFile) {
    public static final int DEFAULT_GRPC_PORT = 7400;
    public static final int DEFAULT_STATUS_PORT = 7480;
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);

    public ControllerConfig {
        requireNonNull(zookeeperConnect, "zookeeperConnect is null");
        bindAddress = bindAddress == null || bindAddress.isEmpty() ? "127.0.0.1" : bindAddress;
        checkPort(grpcPort);
        checkPort(statusPort);
        leaseTtl = leaseTtl == null || leaseTtl.isZero() ? ControllerServiceConfig.DEFAULT_LEASE_TTL : leaseTtl;
        zookeeperSessionTimeout = zookeeperSessionTimeout == null || zookeeperSessionTimeout.isZero()
                ? DEFAULT_SESSION_TIMEOUT : zookeeperSessionTimeout;
        rootPath = rootPath == null || rootPath.isEmpty() ? ControllerServiceConfig.DEFAULT_ROOT : rootPath;
        if (leaseTtl.isNegative() || zookeeperSessionTimeout.isNegative()) {
            throw new IllegalArgumentException("lease TTL and session timeout must be positive");
        }
    }

    /** Without a secret: znodes open to anyone. */
    public ControllerConfig(String zookeeperConnect, String bindAddress, int grpcPort, int statusPort, Duration leaseTtl,
            Duration zookeeperSessionTimeout, String rootPath) {
        this(zookeeperConnect, bindAddress, grpcPort, statusPort, leaseTtl, zookeeperSessionTimeout, rootPath, null);
    }

    public static ControllerConfig of(String zookeeperConnect, int grpcPort, int statusPort) {
        return new ControllerConfig(zookeeperConnect, null, grpcPort, statusPort, null, null, null);
    }

    private static void checkPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }
}
