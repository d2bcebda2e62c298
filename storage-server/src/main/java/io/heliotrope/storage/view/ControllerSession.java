package io.heliotrope.storage.view;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.ImageSession;
import io.heliotrope.version.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * A write session under the controller's lease. Reads and writes never wait on the
 * controller: the lease is renewed and dirty blocks are checkpointed in the background.
 * The session refuses all I/O once fenced (the lease moved on) and also once its lease
 * may have expired without a renewal, since another site may hold the image by then;
 * what it had not flushed is then orphaned. It only ever flushes blocks of its own epoch.
 */
final class ControllerSession implements ImageSession {
    private static final Logger log = LoggerFactory.getLogger(ControllerSession.class);

    interface Orphans {
        void orphan(ImageInfo image, List<BlockVersion> blocks, String reason);
    }

    private final String site;
    private final ImageInfo info;
    private final long epoch;
    private final long ttlNanos;
    private final BlockStore store;
    private final Controller controller;
    private final Orphans orphans;
    private final ScheduledExecutorService scheduler;
    /** Blocks whose local copy is not the committed version, with that version. */
    private final ConcurrentSkipListMap<Long, GlobalBlock> stale = new ConcurrentSkipListMap<>();
    private final AtomicLong writtenSinceCheckpoint = new AtomicLong();
    private final AtomicBoolean checkpointQueued = new AtomicBoolean();
    private final Object flushLock = new Object();
    private final ScheduledFuture<?> renewal;
    /** Until when (System.nanoTime) the lease is surely ours: the last renewal's send time plus most of the TTL. */
    private volatile long validUntilNanos;
    private volatile String fenced;
    private boolean closed;
    private long checkpointBlocks = Long.MAX_VALUE;
    private ScheduledFuture<?> checkpoints;

    /** Starts renewing the lease granted at {@code grantedAtNanos} right away. */
    ControllerSession(String site, ImageInfo info, long epoch, Duration ttl, long grantedAtNanos, BlockStore store, Controller controller,
            Orphans orphans, ScheduledExecutorService scheduler) {
        this.site = requireNonNull(site, "site is null");
        this.info = requireNonNull(info, "info is null");
        this.epoch = epoch;
        this.ttlNanos = ttl.toNanos();
        this.store = requireNonNull(store, "store is null");
        this.controller = requireNonNull(controller, "controller is null");
        this.orphans = requireNonNull(orphans, "orphans is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.validUntilNanos = grantedAtNanos + ttlNanos * 4 / 5;
        long renewMillis = Math.max(1, ttl.toMillis() / 3);
        renewal = scheduler.scheduleWithFixedDelay(this::renew, renewMillis, renewMillis, TimeUnit.MILLISECONDS);
    }

    /** Finds the stale blocks (the view must be synced), then starts checkpointing. */
    void activate(Duration checkpointInterval, long checkpointBlocks) {
        StaleBlocks.find(store, info.id(), entry -> stale.put(entry.block(), entry));
        this.checkpointBlocks = checkpointBlocks;
        long checkpointMillis = checkpointInterval.toMillis();
        checkpoints = scheduler.scheduleWithFixedDelay(this::checkpoint, checkpointMillis, checkpointMillis, TimeUnit.MILLISECONDS);
    }

    int staleCount() {
        return stale.size();
    }

    @Override
    public ImageInfo info() {
        return info;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public void checkCurrent() {
        String reason = fenced;
        if (reason == null && System.nanoTime() - validUntilNanos > 0) {
            reason = "no renewal reached the controller in time, so the lease may have expired";
        }
        if (reason != null) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "' lost its write lease (epoch " + epoch + "): " + reason);
        }
    }

    @Override
    public SortedMap<Long, GlobalBlock> stale(long first, long count) {
        // A copy: a concurrent write may make blocks current while the caller works on them.
        return stale.isEmpty() ? Collections.emptySortedMap() : new TreeMap<>(stale.subMap(first, first + count));
    }

    @Override
    public void wrote(long first, long count) {
        if (!stale.isEmpty()) {
            stale.subMap(first, first + count).clear();
        }
        if (writtenSinceCheckpoint.addAndGet(count) >= checkpointBlocks && checkpointQueued.compareAndSet(false, true)) {
            scheduler.execute(this::checkpoint);
        }
    }

    private void renew() {
        if (fenced != null) {
            return;
        }
        long sentAt = System.nanoTime();
        try {
            controller.renew(info.name(), epoch);
            validUntilNanos = sentAt + ttlNanos * 4 / 5;
        } catch (HeliotropeException e) {
            if (e.code() == ErrorCode.STALE_LEASE || e.code() == ErrorCode.IMAGE_NOT_FOUND) {
                fence(e.getMessage());
            } else {
                log.warn("{}: cannot renew the write lease (epoch {}): {}", info.name(), epoch, e.getMessage());
            }
        } catch (RuntimeException e) {
            log.error("{}: renewing the write lease (epoch {}) failed", info.name(), epoch, e);
        }
    }

    /** Sends the dirty blocks to the controller, keeping the lease. */
    void checkpoint() {
        checkpointQueued.set(false);
        synchronized (flushLock) {
            if (closed || fenced != null) {
                return;
            }
            writtenSinceCheckpoint.set(0);
            try {
                flush(false);
            } catch (RuntimeException e) {
                log.warn("{}: checkpoint failed, will retry: {}", info.name(), e.getMessage());
            }
        }
    }

    /** Gives the lease up without flushing: the session never served anything. */
    void abandon() {
        renewal.cancel(false);
        synchronized (flushLock) {
            closed = true;
            flush(true);
        }
    }

    @Override
    public void close() {
        if (checkpoints != null) {
            checkpoints.cancel(false);
        }
        try {
            synchronized (flushLock) {
                closed = true;
                if (fenced != null) {
                    orphans.orphan(info, ownDirty(), fenced);
                    return;
                }
                flush(true);
            }
        } finally {
            // Only now: a long final flush must not outlive the lease.
            renewal.cancel(false);
        }
    }

    /** The dirty blocks this session wrote; others belong to an earlier session and go through recovery. */
    private List<BlockVersion> ownDirty() {
        return store.dirtyBlocks(info.id()).stream().filter(block -> Version.epochOf(block.version()) == epoch).toList();
    }

    private void flush(boolean release) {
        List<BlockVersion> dirty = ownDirty();
        if (dirty.isEmpty() && !release) {
            return;
        }
        long sentAt = System.nanoTime();
        try {
            long metaSeq = controller.flush(info.name(), epoch, dirty, release);
            validUntilNanos = sentAt + ttlNanos * 4 / 5;
            StaleBlocks.committed(store, info.id(), site, metaSeq, dirty);
            log.debug("{}: flushed {} blocks (metaSeq {}{})", info.name(), dirty.size(), metaSeq, release ? ", lease released" : "");
        } catch (HeliotropeException e) {
            if (e.code() != ErrorCode.STALE_LEASE && e.code() != ErrorCode.IMAGE_NOT_FOUND) {
                throw e;
            }
            fence(e.getMessage());
            orphans.orphan(info, dirty, e.getMessage());
        }
    }

    private void fence(String reason) {
        if (fenced == null) {
            fenced = reason;
            log.warn("{}: fenced at epoch {}; refusing I/O from now on: {}", info.name(), epoch, reason);
        }
    }
}
