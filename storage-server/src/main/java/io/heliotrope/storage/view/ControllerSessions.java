package io.heliotrope.storage.view;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.ImageSession;
import io.heliotrope.storage.image.ImageSessions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Sessions of a site that a controller coordinates: opening an image takes its write
 * lease and syncs the global metadata; writes stay local and are checkpointed to the
 * controller in the background; the last close flushes the rest and gives the lease up.
 */
public final class ControllerSessions implements ImageSessions {
    private static final Logger log = LoggerFactory.getLogger(ControllerSessions.class);

    private final String site;
    private final BlockStore store;
    private final Controller controller;
    private final ScheduledExecutorService scheduler;
    private final Duration checkpointInterval;
    private final long checkpointBlocks;
    private final AtomicLong orphanedBlocks = new AtomicLong();
    private volatile List<String> names = List.of();

    /**
     * @param scheduler runs lease renewals, checkpoints and catalog refreshes; its owner closes it
     * @param checkpointInterval how often dirty blocks go to the controller while an image is open
     * @param checkpointBlocks how many blocks written since the last checkpoint start one early
     */
    public ControllerSessions(String site, BlockStore store, Controller controller, ScheduledExecutorService scheduler,
            Duration checkpointInterval, long checkpointBlocks) {
        this.site = requireNonNull(site, "site is null");
        this.store = requireNonNull(store, "store is null");
        this.controller = requireNonNull(controller, "controller is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.checkpointInterval = requireNonNull(checkpointInterval, "checkpointInterval is null");
        this.checkpointBlocks = checkpointBlocks;
    }

    /** Adds this site to the controller's registry with the addresses it serves on. */
    public void register(String grpcAddress, String nbdAddress) {
        controller.register(grpcAddress, nbdAddress);
    }

    /**
     * Flushes what earlier runs of this site wrote but never flushed, as long as their
     * lease is still current; blocks of a fenced lease are reported and dropped from the
     * dirty set (the synced view then marks them stale, so they are never served).
     */
    public void recover() {
        store.listImages().forEach(this::recover);
        refreshNames();
    }

    private void recover(ImageInfo image) {
        List<BlockVersion> dirty = store.dirtyBlocks(image.id());
        if (dirty.isEmpty()) {
            return;
        }
        long epoch = dirty.stream().mapToLong(block -> block.version() >>> 32).max().orElseThrow();
        try {
            long metaSeq = controller.flush(image.name(), epoch, dirty, true);
            StaleBlocks.committed(store, image.id(), site, metaSeq, dirty);
            log.info("{}: flushed {} blocks left over from epoch {}", image.name(), dirty.size(), epoch);
        } catch (HeliotropeException e) {
            if (e.code() != ErrorCode.STALE_LEASE && e.code() != ErrorCode.IMAGE_NOT_FOUND) {
                throw e;
            }
            orphan(image, dirty, e.getMessage());
        }
    }

    /** Keeps the export list fresh without ever asking the controller on an event loop. */
    public void refreshNames() {
        try {
            names = controller.imageNames();
        } catch (HeliotropeException e) {
            log.warn("site {}: cannot refresh the image list: {}", site, e.getMessage());
        }
    }

    @Override
    public List<String> imageNames() {
        return names;
    }

    @Override
    public ImageSession open(String name) {
        ImageInfo local = store.listImages().stream().filter(image -> image.name().equals(name)).findFirst().orElse(null);
        long cachedSeq = 0;
        if (local != null) {
            // An earlier session that could not flush at close goes first, under its own epoch.
            recover(local);
            cachedSeq = store.viewSeq(local.id());
        }
        Controller.Opened opened = controller.open(name, cachedSeq);
        ImageInfo info;
        try {
            info = localCopy(name, opened.sizeBytes());
            store.applyView(info.id(), opened.metaSeq(), opened.snapshot(), opened.entries());
        } catch (RuntimeException e) {
            giveUp(name, opened.epoch(), e);
            throw e;
        }
        ControllerSession session = new ControllerSession(site, info, opened.epoch(), store, controller, this::orphan);
        session.start(scheduler, opened.ttl(), checkpointInterval, checkpointBlocks);
        log.info("{}: write lease at site {} (epoch {}, metaSeq {}, {} stale blocks)", name, site, opened.epoch(), opened.metaSeq(), session.staleCount());
        return session;
    }

    /** Blocks dropped because their lease was fenced before they reached the controller. */
    public long orphanedBlocks() {
        return orphanedBlocks.get();
    }

    private ImageInfo localCopy(String name, long sizeBytes) {
        for (ImageInfo image : store.listImages()) {
            if (image.name().equals(name)) {
                return image.sizeBytes() == sizeBytes ? image : store.resizeImage(name, sizeBytes);
            }
        }
        return store.createImage(name, sizeBytes);
    }

    private void giveUp(String name, long epoch, RuntimeException cause) {
        try {
            controller.flush(name, epoch, List.of(), true);
        } catch (HeliotropeException e) {
            cause.addSuppressed(e);
        }
    }

    private void orphan(ImageInfo image, List<BlockVersion> blocks, String reason) {
        store.markFlushed(image.id(), blocks);
        orphanedBlocks.addAndGet(blocks.size());
        log.warn("{}: {} blocks written here were never committed and are orphaned; they will not be served ({})",
                image.name(), blocks.size(), reason);
    }

    /** Schedules the catalog refresh; returns what cancels it. */
    public Runnable startRefreshing(Duration every) {
        var task = scheduler.scheduleWithFixedDelay(this::refreshNames, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return () -> task.cancel(false);
    }
}
