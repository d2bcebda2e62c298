package io.heliotrope.controller.metrics;

import io.heliotrope.controller.vm.MigrationMetrics;
import io.heliotrope.controller.zookeeper.ZooKeeperMetrics;
import io.heliotrope.error.HeliotropeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.stream.LongStream;

/**
 * The controller's meters, in the one registry whose Prometheus text {@link #scrape} gives:
 * opens by mode and outcome, flushes with their latency (a histogram) and blocks, write
 * leases held and leases granted anew after they expired, ZooKeeper operations
 * ({@link ZooKeeperMetrics}), the migrations recorded ({@link MigrationMetrics}) and the sites the cluster view finds up. An outcome is
 * {@code ok} or the lowercase {@code ErrorCode} of the failure, {@code internal} for
 * anything else: this is the one place that turns errors into metric tags.
 */
public final class ControllerMetrics implements AutoCloseable {
    /** Flush latency buckets, in milliseconds: a small flush commits in a few, one of millions of entries in seconds. */
    private static final Duration[] FLUSH_BUCKETS = LongStream.of(1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000)
            .mapToObj(Duration::ofMillis).toArray(Duration[]::new);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ZooKeeperMetrics zooKeeper = new ZooKeeperMetrics(registry);
    private final MigrationMetrics migrations = new MigrationMetrics(registry);
    private final Counter flushedBlocks;
    private final Counter leasesExpired;
    private final AtomicInteger leasesHeld = new AtomicInteger();

    public ControllerMetrics() {
        flushedBlocks = Counter.builder("heliotrope.controller.flushed.blocks")
                .description("Block entries committed by flushes")
                .register(registry);
        leasesExpired = Counter.builder("heliotrope.controller.leases.expired")
                .description("Write leases granted anew after their holder let them expire")
                .register(registry);
        Gauge.builder("heliotrope.controller.leases.held", leasesHeld, AtomicInteger::get)
                .description("Images whose write lease is held and live, as of the cluster view's last look")
                .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    public ZooKeeperMetrics zooKeeper() {
        return zooKeeper;
    }

    public MigrationMetrics migrations() {
        return migrations;
    }

    /** Every meter in the Prometheus text format (version 0.0.4). */
    public String scrape() {
        return registry.scrape();
    }

    /** An open that ended, for writing or reading, with {@code failure} (null: opened). */
    public void opened(boolean write, Throwable failure) {
        Counter.builder("heliotrope.controller.opens")
                .description("OpenImage calls by mode and outcome; a write open that waited for the lease counts once")
                .tag("mode", write ? "write" : "read")
                .tag("outcome", outcome(failure))
                .register(registry)
                .increment();
    }

    /** A flush that ended with {@code failure} (null: committed {@code blocks} entries) after running since {@code startNanos}. */
    public void flushed(long startNanos, int blocks, Throwable failure) {
        Timer.builder("heliotrope.controller.flushes")
                .description("Flush commits by outcome, from the stream's end to the commit")
                .tag("outcome", outcome(failure))
                .serviceLevelObjectives(FLUSH_BUCKETS)
                .register(registry)
                .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        if (failure == null) {
            flushedBlocks.increment(blocks);
        }
    }

    public void leaseExpired() {
        leasesExpired.increment();
    }

    public void leasesHeld(int leases) {
        leasesHeld.set(leases);
    }

    /** The cluster view's counts of registered sites and of those that answered its last call. */
    public void bindSites(IntSupplier registered, IntSupplier up) {
        Gauge.builder("heliotrope.controller.sites", registered::getAsInt)
                .description("Registered sites")
                .register(registry);
        Gauge.builder("heliotrope.controller.sites.up", up::getAsInt)
                .description("Registered sites that answered the controller's last GetSiteStatus")
                .register(registry);
    }

    private static String outcome(Throwable failure) {
        if (failure == null) {
            return "ok";
        }
        return HeliotropeException.unwrap(failure) instanceof HeliotropeException e ? e.code().name().toLowerCase(Locale.ROOT) : "internal";
    }

    @Override
    public void close() {
        registry.close();
    }
}
