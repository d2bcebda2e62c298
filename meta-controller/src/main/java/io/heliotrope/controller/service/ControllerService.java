package io.heliotrope.controller.service;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.controller.Names;
import io.heliotrope.controller.catalog.ImageCatalog;
import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.catalog.ImageSpec;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.lease.LeaseManager;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.metadata.Flushed;
import io.heliotrope.controller.metadata.ImageView;
import io.heliotrope.controller.metadata.MetadataLog;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.site.SiteRegistry;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The meta-controller, free of any transport: sites, catalog, leases and metadata. Every
 * call runs on {@code executor}, which owns the blocking ZooKeeper work; the background
 * executor keeps cached views current and compacts logs after commits. Any number of
 * these may share one ZooKeeper: all coordination is in ZooKeeper.
 */
public final class ControllerService {
    private static final Logger log = LoggerFactory.getLogger(ControllerService.class);
    /** The most entries one flush may carry; one this large takes a few hundred MB while it is committed. */
    public static final int MAX_FLUSH_ENTRIES = 1 << 23;

    private final SiteRegistry sites;
    private final ImageCatalog catalog;
    private final LeaseManager leases;
    private final MetadataLog metadata;
    private final ExecutorService executor;
    private final Executor background;

    public ControllerService(ZooKeeperStore zk, ControllerServiceConfig config, Clock clock, ExecutorService executor, Executor background) {
        ZooKeeperLayout layout = new ZooKeeperLayout(config.rootPath());
        zk.ensurePath(layout.sites());
        zk.ensurePath(layout.images());
        this.sites = new SiteRegistry(zk, layout);
        this.catalog = new ImageCatalog(zk, layout, clock, config.leaseTtl());
        this.leases = new LeaseManager(zk, layout, clock, config.leaseTtl());
        this.metadata = new MetadataLog(zk, layout, leases, clock, config.compaction());
        this.executor = requireNonNull(executor, "executor is null");
        this.background = requireNonNull(background, "background is null");
    }

    public CompletableFuture<Site> registerSite(Site site) {
        return async(() -> sites.register(site));
    }

    public CompletableFuture<List<Site>> listSites() {
        return async(sites::list);
    }

    public CompletableFuture<ImageStatus> createImage(ImageSpec spec) {
        return async(() -> status(catalog.create(spec).name()));
    }

    public CompletableFuture<List<ImageConfig>> listImages() {
        return async(catalog::list);
    }

    public CompletableFuture<ImageStatus> getImage(String name) {
        return async(() -> status(name));
    }

    public CompletableFuture<Void> deleteImage(String name) {
        return async(() -> {
            catalog.delete(name);
            metadata.forget(name);
            return null;
        });
    }

    public CompletableFuture<ImageStatus> compactImage(String name) {
        return async(() -> {
            metadata.compact(name, catalog.get(name).createZxid());
            return status(name);
        });
    }

    /** Opens for writing (taking the lease with a new epoch) or reading, and returns what the site lacks after {@code cachedMetaSeq}. */
    public CompletableFuture<OpenedImage> openImage(String image, String site, OpenMode mode, long cachedMetaSeq) {
        requireNonNull(mode, "mode is null");
        return async(() -> {
            sites.require(site);
            Lease lease = mode == OpenMode.WRITE ? leases.acquire(image, site) : leases.read(image).value();
            // Read again under the lease, which an image cannot be removed while held: the identity is of the image the lease is of.
            ImageConfig config = catalog.get(image).value();
            return new OpenedImage(lease, config, metadata.since(image, cachedMetaSeq));
        });
    }

    public CompletableFuture<Lease> renewLease(String image, String site, long epoch) {
        return async(() -> leases.renew(image, Names.site(site), epoch));
    }

    /** Moves the holder's lease to its next epoch without a new grant (see {@link LeaseManager#advance}). */
    public CompletableFuture<Lease> advanceEpoch(String image, String site, long epoch) {
        return async(() -> leases.advance(image, Names.site(site), epoch));
    }

    public CompletableFuture<Lease> getLease(String image) {
        return async(() -> leases.read(image).value());
    }

    public CompletableFuture<Flushed> flush(Flush flush) {
        return async(() -> {
            Versioned<ImageConfig> config = catalog.get(flush.image());
            sites.require(flush.site());
            Flushed flushed = metadata.flush(flush, config.value().blocks());
            afterCommit(flush, config.createZxid(), flushed);
            return flushed;
        });
    }

    public CompletableFuture<Lease> closeImage(String image, String site, long epoch) {
        return async(() -> leases.release(image, Names.site(site), epoch));
    }

    /** Step 1 of a handoff: the lease of {@code from} is to move to {@code to} with its final flush. */
    public CompletableFuture<Lease> prepare(String image, String from, String to) {
        return async(() -> {
            sites.require(from);
            sites.require(to);
            return leases.prepare(image, from, to);
        });
    }

    private ImageStatus status(String name) {
        Versioned<ImageConfig> config = catalog.get(name);
        Lease lease = leases.read(name).value();
        MetadataLog.MetaView view = metadata.view(name, config.createZxid());
        ImageView.Counts counts = view.view().counts();
        return new ImageStatus(config.value(), lease, view.meta().metaSeq(), view.meta().snapshotSeq(),
                counts.currentBlocks(), counts.zeroBlocks(), view.meta().metadataBytes());
    }

    private void afterCommit(Flush flush, long incarnation, Flushed flushed) {
        try {
            background.execute(() -> {
                try {
                    metadata.committed(flush.image(), incarnation, flushed, flush.entries());
                    if (metadata.compactionDue(flushed.meta())) {
                        metadata.compactIfDue(flush.image(), incarnation);
                    }
                } catch (RuntimeException e) {
                    log.warn("{}: background compaction failed: {}", flush.image(), e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("{}: no background compaction, its queue is full or closed", flush.image());
        }
    }

    private <T> CompletableFuture<T> async(Supplier<T> action) {
        return BoundedExecutors.supplyAsync(action, executor, "the controller");
    }
}
