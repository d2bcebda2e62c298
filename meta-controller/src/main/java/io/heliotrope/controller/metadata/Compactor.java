package io.heliotrope.controller.metadata;

import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.Transaction;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * Folds snapshot and log into a new snapshot at the current metaSeq S, committed with a
 * small transaction (meta version check, create {@code snap/S}), then deletes what it
 * supersedes: log records up to S, older snapshots, their chunks, and staged chunks that
 * nobody committed. Safe to run in several controllers at once: one snapshot wins, the
 * others are discarded, and deleting what is already gone is no error.
 */
final class Compactor {
    private static final Logger log = LoggerFactory.getLogger(Compactor.class);
    private static final int MAX_ATTEMPTS = 8;

    private final ZooKeeperStore zk;
    private final MetadataReader reader;
    private final ImageViews views;
    private final PayloadStore payloads;
    private final Clock clock;
    private final CompactionPolicy policy;

    Compactor(ZooKeeperStore zk, MetadataReader reader, ImageViews views, PayloadStore payloads, Clock clock, CompactionPolicy policy) {
        this.zk = requireNonNull(zk, "zk is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.views = requireNonNull(views, "views is null");
        this.payloads = requireNonNull(payloads, "payloads is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.policy = requireNonNull(policy, "policy is null");
    }

    MetaState compact(String image, ImagePaths paths, long incarnation) {
        ImageViews.Loaded loaded = views.load(image, paths, incarnation);
        if (loaded.meta().value().logRecords() > 0) {
            commitSnapshot(image, paths, loaded);
        }
        MetaState meta = reader.meta(image, paths).value();
        cleanUp(image, paths, meta.snapshotSeq());
        return meta;
    }

    private void commitSnapshot(String image, ImagePaths paths, ImageViews.Loaded loaded) {
        long seq = loaded.view().metaSeq();
        BlockEntries entries = loaded.view().entries();
        byte[] payload = EntriesCodec.encode(entries, EntriesCodec.Effort.SMALL);
        PayloadStore.Placement placement = payloads.place(paths, payload, "compaction");
        byte[] record = new RecordHeader(seq, UUID.randomUUID().toString(), "", 0, entries.size(), payload.length,
                placement.staging(), placement.chunks()).encode(placement.inline());
        long bytes = record.length + (long) placement.stagedBytes();
        long loggedBytesAtSeq = loaded.meta().value().loggedBytes();
        Versioned<MetaState> meta = loaded.meta();
        try {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                if (meta.value().snapshotSeq() >= seq) {
                    payloads.discard(paths, placement);
                    return;
                }
                Transaction commit = new Transaction()
                        .setData(paths.meta(), Json.write(meta.value().compacted(seq, bytes, loggedBytesAtSeq)), meta.version())
                        .create(paths.snapshot(seq), record);
                payloads.claim(commit, paths, placement);
                if (zk.commit(commit).committed()) {
                    log.info("{}: compacted {} log records into snapshot {} ({} blocks, {} bytes)",
                            image, seq - loaded.meta().value().snapshotSeq(), seq, entries.size(), bytes);
                    return;
                }
                meta = reader.meta(image, paths);
            }
        } catch (RuntimeException e) {
            payloads.discard(paths, placement);
            throw e;
        }
        payloads.discard(paths, placement);
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + image + "': metadata kept changing during compaction; try again");
    }

    private void cleanUp(String image, ImagePaths paths, long snapshotSeq) {
        List<String> superseded = new ArrayList<>();
        for (String child : zk.children(paths.log())) {
            long seq = ImagePaths.seq(child);
            if (seq >= 0 && seq <= snapshotSeq) {
                superseded.add(paths.log() + "/" + child);
            }
        }
        for (String child : zk.children(paths.snapshots())) {
            long seq = ImagePaths.seq(child);
            if (seq >= 0 && seq < snapshotSeq) {
                superseded.add(paths.snapshots() + "/" + child);
            }
        }
        // Chunks first: a crash in between leaves a record nobody reads, never chunks nobody deletes.
        for (RecordHeader header : reader.headers(superseded)) {
            payloads.delete(paths, header);
        }
        zk.deleteAll(superseded);
        int swept = payloads.sweep(paths, clock.millis() - policy.stagingGrace().toMillis());
        if (!superseded.isEmpty() || swept > 0) {
            log.info("{}: removed {} superseded records and {} abandoned stagings", image, superseded.size(), swept);
        }
    }
}
