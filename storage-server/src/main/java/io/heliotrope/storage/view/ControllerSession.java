package io.heliotrope.storage.view;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.ImageSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
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
 * Once fenced (the lease moved on), the session refuses all I/O and what it had not
 * flushed is orphaned.
 */
final class ControllerSession implements ImageSession {
    private static final Logger log = LoggerFactory.getLogger(ControllerSession.class);

    interface Orphans {
        void orphan(ImageInfo image, List<BlockVersion> blocks, String reason);
    }

    private final String site;
    private final ImageInfo info;
    private final long epoch;
    private final BlockStore store;
    private final Controller controller;
    private final Orphans orphans;
    /** Blocks whose local copy is not the committed version, with that version. */
    private final ConcurrentSkipListMap<Long, GlobalBlock> stale = new ConcurrentSkipListMap<>();
    private final AtomicLong writtenSinceCheckpoint = new AtomicLong();
    private final AtomicBoolean checkpointQueued = new AtomicBoolean();
    private final Object flushLock = new Object();
    private volatile String fenced;
    private boolean closed;
    private ScheduledExecutorService scheduler;
    private long checkpointBlocks;
    private ScheduledFuture<?> renewal;
    private ScheduledFuture<?> checkpoints;

    ControllerSession(String site, ImageInfo info, long epoch, BlockStore store, Controller controller, Orphans orphans) {
        this.site = requireNonNull(site, "site is null");
        this.info = requireNonNull(info, "info is null");
        this.epoch = epoch;
        this.store = requireNonNull(store, "store is null");
        this.controller = requireNonNull(controller, "controller is null");
        this.orphans = requireNonNull(orphans, "orphans is null");
        StaleBlocks.find(store, info.id(), entry -> stale.put(entry.block(), entry));
    }

    void start(ScheduledExecutorService scheduler, Duration ttl, Duration checkpointInterval, long checkpointBlocks) {
        this.scheduler = scheduler;
        this.checkpointBlocks = checkpointBlocks;
        long renewMillis = Math.max(1, ttl.toMillis() / 3);
        renewal = scheduler.scheduleWithFixedDelay(this::renew, renewMillis, renewMillis, TimeUnit.MILLISECONDS);
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
        if (reason != null) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "' lost its write lease (epoch " + epoch + "): " + reason);
        }
    }

    @Override
    public SortedMap<Long, GlobalBlock> stale(long first, long count) {
        return stale.isEmpty() ? Collections.emptySortedMap() : stale.subMap(first, first + count);
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
        try {
            controller.renew(info.name(), epoch);
        } catch (HeliotropeException e) {
            if (e.code() == ErrorCode.STALE_LEASE) {
                fence(e.getMessage());
            } else {
                log.warn("{}: cannot renew the write lease (epoch {}): {}", info.name(), epoch, e.getMessage());
            }
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
            } catch (HeliotropeException e) {
                log.warn("{}: checkpoint failed, will retry: {}", info.name(), e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        renewal.cancel(false);
        checkpoints.cancel(false);
        synchronized (flushLock) {
            closed = true;
            if (fenced != null) {
                orphans.orphan(info, store.dirtyBlocks(info.id()), fenced);
                return;
            }
            flush(true);
        }
    }

    private void flush(boolean release) {
        List<BlockVersion> dirty = store.dirtyBlocks(info.id());
        if (dirty.isEmpty() && !release) {
            return;
        }
        try {
            long metaSeq = controller.flush(info.name(), epoch, dirty, release);
            StaleBlocks.committed(store, info.id(), site, metaSeq, dirty);
            log.debug("{}: flushed {} blocks (metaSeq {}{})", info.name(), dirty.size(), metaSeq, release ? ", lease released" : "");
        } catch (HeliotropeException e) {
            if (e.code() != ErrorCode.STALE_LEASE) {
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
