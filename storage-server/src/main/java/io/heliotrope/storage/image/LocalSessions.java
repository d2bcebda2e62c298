package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * Sessions of a standalone site: every local copy is current and epochs come from the
 * store. A session opens even when the store has no room to record its epoch (the disk
 * is full), without one ({@link ImageSession#NO_EPOCH}): reads work, and writes fail with
 * {@code NO_SPACE} until an epoch is recorded. An epoch refused for lack of space is asked
 * for again at most every {@link #EPOCH_RETRY}, however many writes come meanwhile.
 */
public final class LocalSessions implements ImageSessions {
    static final Duration EPOCH_RETRY = Duration.ofMillis(100);
    private static final Logger log = LoggerFactory.getLogger(LocalSessions.class);

    private final BlockStore store;
    private final LongSupplier nanoClock;

    public LocalSessions(BlockStore store) {
        this(store, System::nanoTime);
    }

    LocalSessions(BlockStore store, LongSupplier nanoClock) {
        this.store = requireNonNull(store, "store is null");
        this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    }

    /** The store's images: its catalog is in memory. */
    @Override
    public CompletableFuture<List<ListedExport>> list() {
        return CompletableFuture.completedFuture(store.listImages().stream().map(image -> new ListedExport(image.name(), ExportDescriptions.of(image))).toList());
    }

    @Override
    public CompletableFuture<Long> sizeBytes(String name) {
        try {
            return CompletableFuture.completedFuture(store.image(name).sizeBytes());
        } catch (HeliotropeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean mayExist(String name) {
        return store.listImages().stream().anyMatch(image -> image.name().equals(name));
    }

    /** No controller to tell. */
    @Override
    public Dirty dirty() {
        return Dirty.SKIP;
    }

    @Override
    public ImageSession open(String name) {
        return new LocalSession(store.image(name));
    }

    private final class LocalSession implements ImageSession {
        private final ImageInfo info;
        private volatile long epoch = NO_EPOCH;
        /** The store's last refusal of an epoch for lack of space, and when it came. */
        private HeliotropeException noSpace;
        private long refusedAt;

        LocalSession(ImageInfo info) {
            this.info = info;
            try {
                nextEpoch();
            } catch (HeliotropeException e) {
                if (e.code() != ErrorCode.NO_SPACE) {
                    throw e;
                }
                log.warn("{}: opened without a session epoch, as the store has no room to record one: reads work, writes fail with ENOSPC"
                        + " until space is freed ({})", info.name(), e.getMessage());
            }
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
        public synchronized long nextEpoch() {
            long now = nanoClock.getAsLong();
            if (noSpace != null && now - refusedAt < EPOCH_RETRY.toNanos()) {
                throw new HeliotropeException(ErrorCode.NO_SPACE, noSpace.getMessage(), noSpace);
            }
            try {
                epoch = store.beginSession(info.id());
                noSpace = null;
                return epoch;
            } catch (HeliotropeException e) {
                if (e.code() == ErrorCode.NO_SPACE) {
                    noSpace = e;
                    refusedAt = now;
                }
                throw e;
            }
        }

        @Override
        public void checkCurrent() {}

        @Override
        public SortedMap<Long, GlobalBlock> stale(long first, long count) {
            return Collections.emptySortedMap();
        }

        @Override
        public void wrote(long first, long count) {}

        @Override
        public void fetched(GlobalBlock block) {}

        @Override
        public void close() {
            // No controller to tell: the blocks are as flushed as they will ever be.
            store.markFlushed(info.id(), store.dirtyBlocks(info.id()));
        }
    }
}
