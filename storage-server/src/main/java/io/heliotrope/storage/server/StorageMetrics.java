package io.heliotrope.storage.server;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.rocksdb.RocksBlockStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** Gauges of the block store: image count and, for RocksDB, segment and index sizes. */
final class StorageMetrics {
    private StorageMetrics() {}

    static void bind(MeterRegistry registry, BlockStore store) {
        Gauge.builder("heliotrope.storage.images", store, s -> s.listImages().size()).register(registry);
        if (store instanceof RocksBlockStore rocks) {
            rocksProperty(registry, rocks, "heliotrope.rocksdb.sst.bytes", "rocksdb.total-sst-files-size");
            Gauge.builder("heliotrope.storage.segment.bytes", rocks, RocksBlockStore::segmentLogBytes)
                    .description("Bytes of block data in segment files, live and not yet cleaned")
                    .register(registry);
            rocksProperty(registry, rocks, "heliotrope.rocksdb.live.data.bytes", "rocksdb.estimate-live-data-size");
            rocksProperty(registry, rocks, "heliotrope.rocksdb.memtable.bytes", "rocksdb.cur-size-all-mem-tables");
            rocksProperty(registry, rocks, "heliotrope.rocksdb.keys", "rocksdb.estimate-num-keys");
        }
    }

    private static void rocksProperty(MeterRegistry registry, RocksBlockStore store, String name, String property) {
        Gauge.builder(name, store, s -> s.longProperty(property)).register(registry);
    }
}
