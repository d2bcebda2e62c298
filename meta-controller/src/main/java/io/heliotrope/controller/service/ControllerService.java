package io.heliotrope.controller.service;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.controller.Names;
import io.heliotrope.controller.catalog.CatalogImage;
import io.heliotrope.controller.catalog.ImageCatalog;
import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.catalog.ImageSpec;
import io.heliotrope.controller.catalog.PropagationMode;
import io.heliotrope.controller.catalog.ReplicationUpdate;
import io.heliotrope.controller.catalog.SitePrior;
import io.heliotrope.controller.catalog.TransitionTable;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.lease.LeaseManager;
import io.heliotrope.controller.lease.LeaseManager.Acquisition;
import io.heliotrope.controller.metadata.Changes;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.metadata.Flushed;
import io.heliotrope.controller.metadata.ImageView;
import io.heliotrope.controller.metadata.Locality;
import io.heliotrope.controller.metadata.MetadataLog;
import io.heliotrope.controller.metrics.ControllerMetrics;
import io.heliotrope.controller.rtt.RttRow;
import io.heliotrope.controller.rtt.RttStore;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.site.SiteRegistry;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
    /** The longest a write open may wait for another site's lease. */
    public static final Duration MAX_OPEN_WAIT = Duration.ofMinutes(10);
    /** How long the fleet's default rows are kept before they are counted again from every image's moves. */
    public static final Duration PRIOR_TTL = Duration.ofSeconds(30);

    private final ZooKeeperStore zk;
    private final SiteRegistry sites;
    private final ImageCatalog catalog;
    private final LeaseManager leases;
    private final MetadataLog metadata;
    private final RttStore rtt;
    private final ExecutorService executor;
    private final Executor background;
    private final ControllerMetrics metrics;
    private final Clock clock;
    /** The fleet's default rows and when they were counted; null until first needed and after a site registers. */
    private volatile Prior prior;

    public ControllerService(ZooKeeperStore zk, ControllerServiceConfig config, Clock clock, ExecutorService executor, Executor background,
            ControllerMetrics metrics) {
        this.zk = requireNonNull(zk, "zk is null");
        ZooKeeperLayout layout = new ZooKeeperLayout(config.rootPath());
        zk.ensurePath(layout.sites());
        zk.ensurePath(layout.images());
        zk.ensurePath(layout.rtt());
        this.sites = new SiteRegistry(zk, layout);
        this.catalog = new ImageCatalog(zk, layout, clock, config.leaseTtl());
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.leases = new LeaseManager(zk, layout, clock, config.leaseTtl(), config.prepareTtl(), metrics);
        this.metadata = new MetadataLog(zk, layout, leases, clock, config.compaction());
        this.rtt = new RttStore(zk, layout, clock);
        this.executor = requireNonNull(executor, "executor is null");
        this.background = requireNonNull(background, "background is null");
        this.clock = clock;
    }

    public CompletableFuture<Site> registerSite(Site site) {
        return async(() -> {
            Site registered = sites.register(site);
            prior = null;
            return registered;
        });
    }

    public CompletableFuture<List<Site>> listSites() {
        return async(sites::list);
    }

    /** Whether this controller's ZooKeeper session is connected, and since when. */
    public ZooKeeperStore.Health zooKeeper() {
        return zk.health();
    }

    /** Creates an image; a home it names must be a registered site. Fails while ZooKeeper is out of reach (after a short grace). */
    public CompletableFuture<ImageStatus> createImage(ImageSpec spec) {
        return withZooKeeper("create image '" + spec.name() + "'", zk::awaitConnected, () -> {
            requireHome(spec.replication());
            return status(catalog.create(spec).name());
        });
    }

    public CompletableFuture<List<CatalogImage>> listImages() {
        return async(() -> {
            TransitionTable fleet = prior();
            return catalog.list().stream().map(image -> image.withPrior(fleet)).toList();
        });
    }

    /** Changes an image's replication settings; sites apply them from their next open. */
    public CompletableFuture<ImageStatus> setImage(String name, ReplicationUpdate update) {
        return async(() -> {
            requireHome(update);
            catalog.set(name, update);
            return status(name);
        });
    }

    public CompletableFuture<ImageStatus> getImage(String name) {
        return async(() -> status(name));
    }

    /** What {@link #getImage} gives for the image named, or for every image of the catalog when {@code name} is empty. */
    public CompletableFuture<List<ImageStatus>> imageStatuses(String name) {
        return async(() -> name.isEmpty() ? catalogStatuses() : List.of(status(name)));
    }

    /** Which site holds the current version of most blocks of each of about {@code regions} regions (0: the default; see {@link Locality}). */
    public CompletableFuture<Locality> locality(String name, int regions) {
        return async(() -> {
            int count = Locality.regions(name, regions);
            Versioned<ImageConfig> config = catalog.get(name);
            return Locality.of(metadata.view(name, config.createZxid()).view(), config.value().blocks(), config.value().blockSize(), count);
        });
    }

    /** How many images have a write lease held and live now. */
    public CompletableFuture<Integer> leasesHeld() {
        return async(leases::countActive);
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

    /**
     * Opens for writing (taking the lease with a new epoch) or reading, and returns what the
     * site lacks after {@code cachedMetaSeq}. While another site holds a live write lease, a
     * write open waits up to {@code wait} for it to be released or to expire (a watch on the
     * lease and a timer at its expiry, holding no thread), then fails with {@code LEASE_HELD}.
     * The first write open of an image without a home makes its site the home. Fails at once
     * with {@code PEER_UNAVAILABLE}, naming ZooKeeper, while this controller has no connection to it.
     */
    public CompletableFuture<OpenedImage> openImage(String image, String site, OpenMode mode, long cachedMetaSeq, Duration wait) {
        requireNonNull(mode, "mode is null");
        return open(image, site, mode, cachedMetaSeq, wait).whenComplete((ignored, failure) -> metrics.opened(mode == OpenMode.WRITE, failure));
    }

    private CompletableFuture<OpenedImage> open(String image, String site, OpenMode mode, long cachedMetaSeq, Duration wait) {
        if (!allowed(wait)) {
            return CompletableFuture.failedFuture(waitRefused(image, "an open", wait));
        }
        try {
            zk.awaitConnected("open image '" + image + "'");
        } catch (HeliotropeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (mode == OpenMode.READ) {
            return async(() -> {
                sites.require(site);
                return opened(leases.read(image).value(), image(image), cachedMetaSeq);
            });
        }
        return openForWrite(image, site, cachedMetaSeq, wait, System.nanoTime());
    }

    private CompletableFuture<OpenedImage> openForWrite(String image, String site, long cachedMetaSeq, Duration wait, long start) {
        long left = wait.toNanos() - (System.nanoTime() - start);
        return async(() -> {
            sites.require(site);
            return leases.acquire(image, site, left > 0);
        }).thenCompose(acquired -> {
            if (acquired instanceof Acquisition.Granted granted) {
                // Read under the lease, which an image cannot be removed while held: the identity is of the image the lease is of.
                return async(() -> opened(granted.lease(), catalog.claimHome(image, site).withPrior(prior()), cachedMetaSeq));
            }
            Acquisition.Held held = (Acquisition.Held) acquired;
            if (left <= 0) {
                return CompletableFuture.failedFuture(wait.isZero() ? held.lease().heldError(image, held.now())
                        : new HeliotropeException(ErrorCode.LEASE_HELD, held.lease().heldError(image, held.now()).getMessage()
                                + "; waited " + wait.toMillis() + " ms for its release"));
            }
            long untilExpiry = TimeUnit.MILLISECONDS.toNanos(held.lease().expiresEpochMillis() - held.now());
            return held.changed()
                    .completeOnTimeout(null, Math.min(left, untilExpiry), TimeUnit.NANOSECONDS)
                    .thenCompose(changed -> openForWrite(image, site, cachedMetaSeq, wait, start));
        });
    }

    /**
     * Waits until {@code site} holds the lease (a handoff's final flush moved it there), then
     * answers as a read open from {@code cachedMetaSeq}: the site in standby learns of the
     * move without a round trip after it. The wait is a watch on the lease, holding no
     * thread. When {@code wait} passes first, answers the lease as it is and no metadata.
     */
    public CompletableFuture<OpenedImage> awaitHandoff(String image, String site, long cachedMetaSeq, Duration wait) {
        if (!allowed(wait)) {
            return CompletableFuture.failedFuture(waitRefused(image, "a handoff's await", wait));
        }
        return awaitHolder(image, site, cachedMetaSeq, wait, System.nanoTime());
    }

    private CompletableFuture<OpenedImage> awaitHolder(String image, String site, long cachedMetaSeq, Duration wait, long start) {
        long left = wait.toNanos() - (System.nanoTime() - start);
        CompletableFuture<Void> changed = new CompletableFuture<>();
        return async(() -> {
            sites.require(site);
            Lease lease = (left > 0 ? leases.readWatched(image, changed) : leases.read(image)).value();
            if (lease.holder().equals(site)) {
                return Optional.of(opened(lease, image(image), cachedMetaSeq));
            }
            return left > 0 ? Optional.<OpenedImage>empty() : Optional.of(new OpenedImage(lease, image(image), Changes.none(cachedMetaSeq)));
        }).thenCompose(found -> found.map(CompletableFuture::completedFuture).orElseGet(() -> changed
                .completeOnTimeout(null, left, TimeUnit.NANOSECONDS)
                .thenCompose(ignored -> awaitHolder(image, site, cachedMetaSeq, wait, start))));
    }

    private static boolean allowed(Duration wait) {
        return !wait.isNegative() && wait.compareTo(MAX_OPEN_WAIT) <= 0;
    }

    private static HeliotropeException waitRefused(String image, String call, Duration wait) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                "image '" + image + "': " + call + " may wait at most " + MAX_OPEN_WAIT.toSeconds() + " s for the lease, not " + wait.toMillis() + " ms");
    }

    private OpenedImage opened(Lease lease, CatalogImage image, long cachedMetaSeq) {
        return new OpenedImage(lease, image, metadata.since(image.config().name(), cachedMetaSeq));
    }

    /** Fails at once while ZooKeeper is out of reach, as {@link #flush} does. */
    public CompletableFuture<Lease> renewLease(String image, String site, long epoch) {
        return withZooKeeper("renew the lease of image '" + image + "'", zk::checkConnected, () -> leases.renew(image, Names.site(site), epoch));
    }

    /** Moves the holder's lease to its next epoch without a new grant (see {@link LeaseManager#advance}). */
    public CompletableFuture<Lease> advanceEpoch(String image, String site, long epoch) {
        return withZooKeeper("advance the lease of image '" + image + "'", zk::checkConnected, () -> leases.advance(image, Names.site(site), epoch));
    }

    public CompletableFuture<Lease> getLease(String image) {
        return async(() -> leases.read(image).value());
    }

    /** Records, for the sync mode, that these registered sites take copies of the live holder's writes (see {@link LeaseManager#recordSyncSites}). */
    public CompletableFuture<Lease> recordSyncSites(String image, String site, long epoch, List<String> syncSites) {
        return async(() -> {
            sites.require(site);
            syncSites.forEach(sites::require);
            return leases.recordSyncSites(image, site, epoch, syncSites);
        });
    }

    /**
     * Commits a flush. Fails at once while ZooKeeper is out of reach, as renewals do: a site
     * repeats them anyway, and calls that would wait for ZooKeeper would pile up on the
     * executor and keep the calls that fail at once (opens, creates) waiting behind them.
     */
    public CompletableFuture<Flushed> flush(Flush flush) {
        long start = System.nanoTime();
        return withZooKeeper("flush image '" + flush.image() + "'", zk::checkConnected, () -> {
            Versioned<ImageConfig> config = catalog.get(flush.image());
            sites.require(flush.site());
            ImageConfig image = config.value();
            Flushed flushed = metadata.flush(flush, image.blocks(), image.mode() == PropagationMode.REMOTE ? image.home() : "");
            afterCommit(flush, config.createZxid(), flushed);
            return flushed;
        }).whenComplete((flushed, failure) -> metrics.flushed(start, flushed == null ? 0 : flushed.blocks(), failure));
    }

    public CompletableFuture<Lease> closeImage(String image, String site, long epoch) {
        return async(() -> leases.release(image, Names.site(site), epoch));
    }

    /** Step 1 of a handoff, or its renewal: the lease of {@code from} is to move to {@code to} with its final flush (see {@link LeaseManager#prepare}). */
    public CompletableFuture<Lease> prepare(String image, String from, String to) {
        return async(() -> {
            sites.require(from);
            sites.require(to);
            return leases.prepare(image, from, to);
        });
    }

    /** Rolls a handoff back before its commit point (see {@link LeaseManager#cancelHandoff}). */
    public CompletableFuture<Lease> cancelHandoff(String image, String from, String to) {
        return async(() -> leases.cancelHandoff(image, Names.site(from), Names.site(to)));
    }

    /** Records that a handoff committed: it can no longer be rolled back (see {@link LeaseManager#completeHandoff}). */
    public CompletableFuture<Lease> completeHandoff(String image, String from, String to) {
        return async(() -> leases.completeHandoff(image, Names.site(from), Names.site(to)));
    }

    /** Ends a dead holder's lease now, fenced like an expiry (see {@link LeaseManager#breakLease}). */
    public CompletableFuture<Lease> breakLease(String image, String site, long epoch) {
        return async(() -> leases.breakLease(image, Names.site(site), epoch));
    }

    /** Stores the round-trip times, in microseconds, that a registered site measured to its peers, probing every {@code probePeriodMillis}. */
    public CompletableFuture<RttRow> reportRtt(String site, Map<String, Long> rttMicros, long probePeriodMillis) {
        return async(() -> {
            sites.require(site);
            return rtt.report(site, rttMicros, probePeriodMillis);
        });
    }

    public CompletableFuture<List<RttRow>> rttMatrix() {
        return async(rtt::matrix);
    }

    private void requireHome(ReplicationUpdate update) {
        if (update.home() != null && !update.home().isEmpty()) {
            sites.require(update.home());
        }
    }

    /** Every image's status; an image deleted while they are read is left out. */
    private List<ImageStatus> catalogStatuses() {
        List<ImageStatus> statuses = new ArrayList<>();
        for (CatalogImage image : catalog.list()) {
            try {
                statuses.add(status(image.config().name()));
            } catch (HeliotropeException e) {
                if (e.code() != ErrorCode.IMAGE_NOT_FOUND) {
                    throw e;
                }
            }
        }
        return statuses;
    }

    private ImageStatus status(String name) {
        Versioned<ImageConfig> config = catalog.get(name);
        Lease lease = leases.read(name).value();
        MetadataLog.MetaView view = metadata.view(name, config.createZxid());
        ImageView.Counts counts = view.view().counts();
        return new ImageStatus(image(name), lease, view.meta().metaSeq(), view.meta().snapshotSeq(),
                counts.currentBlocks(), counts.zeroBlocks(), view.meta().metadataBytes());
    }

    /** The image as the catalog has it, with the fleet's default rows. */
    private CatalogImage image(String name) {
        return catalog.image(name).withPrior(prior());
    }

    /**
     * The fleet's default rows ({@link SitePrior}), counted again from the registered sites and
     * every image's moves once {@link #PRIOR_TTL} passed: a catalog read, kept off every open.
     */
    private TransitionTable prior() {
        long now = clock.millis();
        Prior cached = prior;
        if (cached == null || now - cached.countedMillis() >= PRIOR_TTL.toMillis() || now < cached.countedMillis()) {
            cached = new Prior(SitePrior.of(sites.list().stream().map(Site::name).toList(),
                    catalog.list().stream().map(CatalogImage::moves).toList()), now);
            prior = cached;
        }
        return cached.table();
    }

    private record Prior(TransitionTable table, long countedMillis) {}

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

    /** {@code action} on the executor, unless {@code check} finds ZooKeeper out of reach: then a failure naming it, taking no thread of it. */
    private <T> CompletableFuture<T> withZooKeeper(String action, Consumer<String> check, Supplier<T> call) {
        try {
            check.accept(action);
        } catch (HeliotropeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return async(call);
    }

    private <T> CompletableFuture<T> async(Supplier<T> action) {
        return BoundedExecutors.supplyAsync(action, executor, "the controller");
    }
}
