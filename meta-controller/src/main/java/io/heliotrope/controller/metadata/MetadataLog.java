package io.heliotrope.controller.metadata;

import io.heliotrope.controller.lease.LeaseManager;
import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The global block metadata of every image: a log of numbered deltas and a snapshot in
 * ZooKeeper, with materialized views cached in this process. Blocking; callers run it on
 * their ZooKeeper executor.
 */
public final class MetadataLog {
    private static final int CACHED_VIEWS = 16;
    private static final int MAX_ATTEMPTS = 8;

    private final ZooKeeperLayout layout;
    private final MetadataReader reader;
    private final ImageViews views;
    private final FlushCommitter committer;
    private final Compactor compactor;
    private final CompactionPolicy policy;

    public MetadataLog(ZooKeeperStore zk, ZooKeeperLayout layout, LeaseManager leases, Clock clock, CompactionPolicy policy) {
        this.layout = requireNonNull(layout, "layout is null");
        this.policy = requireNonNull(policy, "policy is null");
        PayloadStore payloads = new PayloadStore(zk, clock);
        this.reader = new MetadataReader(zk, payloads);
        this.views = new ImageViews(reader, new ViewCache(CACHED_VIEWS));
        this.committer = new FlushCommitter(zk, leases, reader, payloads, clock);
        this.compactor = new Compactor(zk, reader, views, payloads, clock, policy);
    }

    /**
     * Commits a flush to an image of {@code imageBlocks} blocks; see {@link FlushCommitter}.
     *
     * @param remoteHome the home of an image in the {@code remote} mode, which holds the
     *        blocks any site writes to it; empty for the other modes
     */
    public Flushed flush(Flush flush, long imageBlocks, String remoteHome) {
        return committer.commit(flush, layout.image(flush.image()), imageBlocks, remoteHome);
    }

    /**
     * What a site that has applied everything up to {@code cachedMetaSeq} lacks: the deltas
     * after it, or, when it is behind the snapshot (or ahead of the log), the snapshot and
     * the deltas after that.
     */
    public Changes since(String image, long cachedMetaSeq) {
        ImagePaths paths = layout.image(image);
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            MetaState meta = reader.meta(image, paths).value();
            boolean tail = cachedMetaSeq >= meta.snapshotSeq() && cachedMetaSeq <= meta.metaSeq();
            Optional<BlockEntries> snapshot = tail ? Optional.empty() : reader.snapshot(paths, meta.snapshotSeq());
            if (!tail && snapshot.isEmpty()) {
                continue;
            }
            Optional<List<BlockEntries>> deltas = reader.log(paths, tail ? cachedMetaSeq : meta.snapshotSeq(), meta.metaSeq());
            if (deltas.isPresent()) {
                return new Changes(meta.metaSeq(), snapshot, deltas.get());
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + image + "': its metadata was compacted "
                + MAX_ATTEMPTS + " times while being read; try again");
    }

    /** The materialized view at the current metaSeq, and that meta. */
    public MetaView view(String image, long incarnation) {
        ImageViews.Loaded loaded = views.load(image, layout.image(image), incarnation);
        return new MetaView(loaded.meta().value(), loaded.view());
    }

    /** A view and the meta it was built from. */
    public record MetaView(MetaState meta, ImageView view) {}

    /** Keeps a cached view current after a commit of this process. */
    public void committed(String image, long incarnation, Flushed flushed, BlockEntries delta) {
        if (flushed.blocks() > 0) {
            views.advance(image, incarnation, flushed.metaSeq(), delta);
        }
    }

    /** Whether the log as of {@code meta} is due for compaction; a cheap hint, {@link #compactIfDue} decides. */
    public boolean compactionDue(MetaState meta) {
        return policy.due(meta);
    }

    /** Compacts when the log, as it is now, is due for it; returns whether it did. */
    public boolean compactIfDue(String image, long incarnation) {
        if (!policy.due(reader.meta(image, layout.image(image)).value())) {
            return false;
        }
        compact(image, incarnation);
        return true;
    }

    /** Folds the log into a snapshot and removes what that supersedes; returns the meta after. */
    public MetaState compact(String image, long incarnation) {
        return compactor.compact(image, layout.image(image), incarnation);
    }

    /** Drops what is cached about a deleted image. */
    public void forget(String image) {
        views.forget(image);
    }
}
