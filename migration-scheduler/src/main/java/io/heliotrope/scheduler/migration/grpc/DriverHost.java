package io.heliotrope.scheduler.migration.grpc;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.heliotrope.scheduler.decision.ClusterState;
import io.heliotrope.scheduler.migration.DriverConfig;
import io.heliotrope.scheduler.migration.MigrationDriver;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The migration driver as it runs beside a controller: its calls to the controller over a
 * channel to {@code controllerTarget}, to the sites over {@link SiteChannels}, and its
 * service, which the controller's gRPC server adds to its own. Closing stops the driver,
 * then its channels.
 */
public final class DriverHost implements AutoCloseable {
    private static final Duration CALL_DEADLINE = Duration.ofSeconds(30);

    private final ManagedChannel controller;
    private final SiteChannels sites;
    private final GrpcClusterCalls cluster;
    private final MigrationDriver driver;

    /** @param siteOverrides per site, the gRPC address to reach it at instead of the one it registered */
    public DriverHost(String controllerTarget, Map<String, String> siteOverrides, DriverConfig config) {
        this.controller = NettyChannelBuilder.forTarget(controllerTarget).usePlaintext().build();
        this.sites = new SiteChannels(controller, controllerTarget, siteOverrides, CALL_DEADLINE);
        this.cluster = new GrpcClusterCalls(controller, controllerTarget, CALL_DEADLINE);
        this.driver = new MigrationDriver(config, cluster, sites);
    }

    /** The controller as the scheduler reads it, over the driver's channel. */
    public ClusterState cluster() {
        return cluster;
    }

    public MigrationDriver driver() {
        return driver;
    }

    public BindableService service() {
        return new MigrationGrpcService(driver);
    }

    @Override
    public void close() {
        driver.close();
        sites.close();
        try {
            controller.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
