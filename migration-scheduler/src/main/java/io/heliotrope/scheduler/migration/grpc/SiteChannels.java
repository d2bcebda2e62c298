package io.heliotrope.scheduler.migration.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.ListSitesRequest;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.scheduler.migration.SiteCalls;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.heliotrope.scheduler.migration.grpc.Calls.call;
import static java.util.Objects.requireNonNull;

/**
 * The driver's channels to the sites, at the gRPC addresses the sites registered with the
 * controller unless {@code overrides} names another (the link through which the driver
 * reaches a site, as {@code helio up} has it); one channel per site and address, closed with
 * this. The address is looked up for each migration: a site that came back on another port
 * registered that one.
 */
public final class SiteChannels implements Function<String, SiteCalls>, AutoCloseable {
    private final ManagedChannel controller;
    private final String controllerTarget;
    private final Map<String, String> overrides;
    private final Duration deadline;
    private final Map<String, Target> channels = new HashMap<>();

    /** A site's channel and the address it leads to. */
    private record Target(String address, ManagedChannel channel) {}

    public SiteChannels(ManagedChannel controller, String controllerTarget, Map<String, String> overrides, Duration deadline) {
        this.controller = requireNonNull(controller, "controller is null");
        this.controllerTarget = requireNonNull(controllerTarget, "controllerTarget is null");
        this.overrides = Map.copyOf(overrides);
        this.deadline = requireNonNull(deadline, "deadline is null");
    }

    /** The calls to a registered site; {@code SITE_NOT_FOUND} for another. */
    @Override
    public SiteCalls apply(String site) {
        return new GrpcSiteCalls(channel(site), site, deadline);
    }

    private synchronized ManagedChannel channel(String site) {
        String address = address(site);
        Target target = channels.get(site);
        if (target == null || !target.address().equals(address)) {
            if (target != null) {
                target.channel().shutdown();
            }
            target = new Target(address, NettyChannelBuilder.forTarget(address).usePlaintext().build());
            channels.put(site, target);
        }
        return target.channel();
    }

    private String address(String site) {
        String override = overrides.get(site);
        if (override != null) {
            return override;
        }
        Map<String, String> registered = new HashMap<>();
        for (Site known : call(controllerTarget, () -> ControllerServiceGrpc.newBlockingStub(controller)
                .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .listSites(ListSitesRequest.getDefaultInstance())
                .getSitesList())) {
            registered.put(known.getName(), known.getGrpcAddress());
        }
        String address = registered.get(site);
        if (address == null) {
            throw new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "no site '" + site + "' is registered (sites: "
                    + String.join(", ", new TreeSet<>(registered.keySet())) + ")");
        }
        return address;
    }

    @Override
    public synchronized void close() {
        channels.values().forEach(target -> target.channel().shutdownNow());
        channels.clear();
    }
}
