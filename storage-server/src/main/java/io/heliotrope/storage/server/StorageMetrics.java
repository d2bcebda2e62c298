package io.heliotrope.storage.server;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.StoreStats;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.session.GrpcController;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.WanWaits;
import io.heliotrope.storage.view.WanWaits.Cause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/** Gauges of the block store (image count, block file and index sizes) and of the view. */
final class StorageMetrics {
    private StorageMetrics() {}

    static void bind(MeterRegistry registry, BlockStore store) {
        Gauge.builder("heliotrope.storage.images", store, s -> s.listImages().size()).register(registry);
        stat(registry, store, "heliotrope.rocksdb.sst.bytes", StoreStats::indexSstBytes);
        Gauge.builder("heliotrope.storage.block.file.bytes", store, s -> s.stats().blockFileBytes())
                .description("Size of the block files of the images in use since the start: two slots per block, holes included")
                .register(registry);
        stat(registry, store, "heliotrope.rocksdb.live.data.bytes", StoreStats::indexLiveDataBytes);
        stat(registry, store, "heliotrope.rocksdb.memtable.bytes", StoreStats::indexMemtableBytes);
        stat(registry, store, "heliotrope.rocksdb.keys", StoreStats::indexKeys);
    }

    static void bindOrphans(MeterRegistry registry, ControllerSessions sessions) {
        Gauge.builder("heliotrope.view.orphaned.blocks", sessions, ControllerSessions::orphanedBlocks)
                .description("Blocks written here whose lease was fenced before they reached the controller")
                .register(registry);
    }

    static void bindFailovers(MeterRegistry registry, GrpcController controllers) {
        FunctionCounter.builder("heliotrope.controller.failovers", controllers, GrpcController::failovers)
                .description("Times the calls to the controllers moved to another one, the one in use having stopped answering")
                .register(registry);
        Gauge.builder("heliotrope.controller.failover.last.seconds", controllers, GrpcController::lastFailoverSeconds)
                .description("From the first unanswered call of the controller left last to the first answer of the next one")
                .register(registry);
    }

    /** Blocks read, by where they came from: {@code here} over all is the site's local hit ratio. */
    static ReadCounter reads(MeterRegistry registry) {
        Counter here = Counter.builder("heliotrope.view.read.blocks").tag("source", "here")
                .description("Blocks read that were current at this site (or read as zeros)").register(registry);
        Counter fetched = Counter.builder("heliotrope.view.read.blocks").tag("source", "fetched")
                .description("Blocks read that had to be fetched from another site first").register(registry);
        return (hereBlocks, fetchedBlocks) -> {
            here.increment(hereBlocks);
            fetched.increment(fetchedBlocks);
        };
    }

    /**
     * The time clients' requests waited on other sites, by cause: per second, the mean number
     * of requests waiting on the WAN.
     */
    static WanWaits wanWaits(MeterRegistry registry) {
        Map<Cause, LongAdder> nanos = new EnumMap<>(Cause.class);
        for (Cause cause : Cause.values()) {
            LongAdder waited = new LongAdder();
            nanos.put(cause, waited);
            FunctionCounter.builder("heliotrope.io.wan.wait", waited, adder -> adder.sum() / (double) TimeUnit.SECONDS.toNanos(1))
                    .baseUnit("seconds").tag("cause", cause.name().toLowerCase(Locale.ROOT))
                    .description("Time clients' requests spent waiting on other sites: fetches of what this site lacks, sync copies, a remote image's home")
                    .register(registry);
        }
        return (cause, waited) -> nanos.get(cause).add(waited);
    }

    private static void stat(MeterRegistry registry, BlockStore store, String name, ToLongFunction<StoreStats> stat) {
        Gauge.builder(name, store, s -> stat.applyAsLong(s.stats())).register(registry);
    }
}
