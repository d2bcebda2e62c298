package io.heliotrope.storage.server;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.rocksdb.RocksBlockStore;
import io.heliotrope.storage.view.ControllerSessions;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** Gauges of the block store (image count; for RocksDB, block file and index sizes) and of the view. */
final class StorageMetrics {
    private StorageMetrics() {}

    static void bind(MeterRegistry registry, BlockStore store) {
        Gauge.builder("heliotrope.storage.images", store, s -> s.listImages().size()).register(registry);
        if (store instanceof RocksBlockStore rocks) {
            rocksProperty(registry, rocks, "heliotrope.rocksdb.sst.bytes", "rocksdb.total-sst-files-size");
            Gauge.builder("heliotrope.storage.block.file.bytes", rocks, RocksBlockStore::blockFileBytes)
                    .description("Size of the block files of the images in use since the start: two slots per block, holes included")
                    .register(registry);
            rocksProperty(registry, rocks, "heliotrope.rocksdb.live.data.bytes", "rocksdb.estimate-live-data-size");
            rocksProperty(registry, rocks, "heliotrope.rocksdb.memtable.bytes", "rocksdb.cur-size-all-mem-tables");
            rocksProperty(registry, rocks, "heliotrope.rocksdb.keys", "rocksdb.estimate-num-keys");
        }
    }

    static void bindOrphans(MeterRegistry registry, ControllerSessions sessions) {
        Gauge.builder("heliotrope.view.orphaned.blocks", sessions, ControllerSessions::orphanedBlocks)
                .description("Blocks written here whose lease was fenced before they reached the controller")
                .register(registry);
    }

    private static void rocksProperty(MeterRegistry registry, RocksBlockStore store, String name, String property) {
        Gauge.builder(name, store, s -> s.longProperty(property)).register(registry);
    }
}
