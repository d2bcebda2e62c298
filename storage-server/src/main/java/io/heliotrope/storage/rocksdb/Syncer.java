package io.heliotrope.storage.rocksdb;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.HeliotropeException;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The syncs of a {@link RocksBlockStore}: the block files, then the WAL, under the
 * {@link WritePipeline}'s write lock, which guards the state here too. A write syncs
 * when it asks to, or once many blocks were written since the last sync; fewer start a
 * sync in the background.
 */
final class Syncer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Syncer.class);
    /**
     * Blocks written since the last sync, across images, from which on a sync runs in the
     * background: rewrites of blocks written since go inline, so the longer syncs wait, the
     * more of the writes of a wide random workload go inline too (random 4 KiB writes on a
     * disk over 1 GiB, two store threads: 30K/s syncing every 256K blocks, 37K/s syncing
     * every 16K, and 40 instead of 57 us of CPU each).
     */
    private static final int BACKGROUND_SYNC_BLOCKS = 1 << 14;
    /** Blocks written since the last sync, across images, from which on a write syncs before it returns. */
    private static final int MAX_UNSYNCED_BLOCKS = 1 << 18;

    private final CombiningLock<QueuedWrite> lock;
    private final IndexDb index;
    private final BlockFiles files;
    private final FreeSlots freeSlots;
    private final ScatteredGroups scattered;
    /** Runs background syncs; one thread, as one sync at a time does all there is. */
    private final ExecutorService background = BoundedExecutors.fixed("store-sync", 1, 1);
    private long syncs;
    /** Whether a background sync is asked for and not done. */
    private boolean backgroundSync;
    /** Syncs that ran the queued writes first, numbered as they start; written under the lock. */
    private volatile long started;
    /** The number of the last of those that completed. */
    private long completed;

    Syncer(CombiningLock<QueuedWrite> lock, IndexDb index, BlockFiles files, FreeSlots freeSlots, ScatteredGroups scattered) {
        this.lock = requireNonNull(lock, "lock is null");
        this.index = requireNonNull(index, "index is null");
        this.files = requireNonNull(files, "files is null");
        this.freeSlots = requireNonNull(freeSlots, "freeSlots is null");
        this.scattered = requireNonNull(scattered, "scattered is null");
    }

    /**
     * Called under the lock once writes are committed: syncs if one of them asked to or
     * too many blocks are unsynced, else asks for a background sync once enough are;
     * returns whether it synced.
     */
    boolean afterWrites(boolean asked) {
        if (asked || freeSlots.unsyncedBlocks() > MAX_UNSYNCED_BLOCKS) {
            syncLocked();
            return true;
        }
        if (freeSlots.unsyncedBlocks() > BACKGROUND_SYNC_BLOCKS && !backgroundSync) {
            requestBackgroundSync();
        }
        return false;
    }

    /** Syncs the block files, then the WAL: from here on, every slot not in the index may be overwritten. */
    void syncLocked() {
        files.sync();
        try {
            if (!index.space.readOnly()) {
                index.syncWal();
            }
        } catch (RocksDBException e) {
            throw IndexDb.failure("sync", e);
        }
        freeSlots.synced();
        syncs++;
    }

    /**
     * Runs the queued writes, then makes every completed write durable, unless a sync that
     * did the same started after this call did, and completed while it waited for the lock:
     * concurrent FLUSHes share one sync, as a file system's journal commits do.
     */
    void sync() {
        long arrived = started;
        List<QueuedWrite> ran = new ArrayList<>();
        lock.lock();
        try {
            if (completed <= arrived) {
                runQueuedAndSyncLocked(ran);
            }
        } finally {
            lock.unlock(ran);
        }
    }

    private void runQueuedAndSyncLocked(List<QueuedWrite> ran) {
        long number = ++started;
        lock.runQueuedLocked(ran);
        syncLocked();
        completed = number;
    }

    /**
     * Commits a batch and syncs the WAL, which makes every index entry written before it
     * durable too: so the block files are synced first, under the write lock, so that no
     * block write slips in between.
     */
    void writeDurably(WriteBatch batch) throws RocksDBException {
        index.space.admitIndexChange();
        lock.lock();
        try {
            files.sync();
            index.writeAndSyncWal(batch);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Syncs the block files without the write lock, which writes back most of their dirty
     * pages while writes go on, then syncs under it as {@link #sync()} does, which leaves
     * only what was written meanwhile to write back.
     */
    private void requestBackgroundSync() {
        try {
            background.execute(this::syncInBackground);
            backgroundSync = true;
        } catch (RejectedExecutionException e) {
            // Closing: the store syncs as it closes.
        }
    }

    private void syncInBackground() {
        try {
            files.sync();
        } catch (RuntimeException e) {
            // Only a head start: the sync under the lock meets the same failure, and reports it.
        }
        List<QueuedWrite> ran = new ArrayList<>();
        lock.lock();
        try {
            backgroundSync = false;
            runQueuedAndSyncLocked(ran);
            scattered.gather();
        } catch (RuntimeException e) {
            log.warn("background sync failed; the next write that needs a sync tries again: {}", HeliotropeException.rootMessage(e));
        } finally {
            lock.unlock(ran);
        }
    }

    /** How many times the store has synced, for tests. */
    long syncs() {
        lock.lock();
        try {
            return syncs;
        } finally {
            lock.unlock();
        }
    }

    /** Lets a background sync end; it is not interrupted, as an interrupt would close the block files' channels. */
    @Override
    public void close() {
        background.shutdown();
        try {
            if (!background.awaitTermination(1, TimeUnit.MINUTES)) {
                log.warn("a background sync still runs after a minute; closing anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
