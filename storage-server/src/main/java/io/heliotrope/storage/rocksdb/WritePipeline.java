package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.Dirty;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;
import static io.heliotrope.storage.rocksdb.IndexEntries.INLINE;
import static io.heliotrope.storage.rocksdb.IndexEntries.STATE_DATA;
import static io.heliotrope.storage.rocksdb.IndexEntries.checksum;
import static io.heliotrope.storage.rocksdb.IndexEntries.dataEntry;
import static io.heliotrope.storage.rocksdb.IndexEntries.dataGroupEntry;
import static io.heliotrope.storage.rocksdb.IndexEntries.groupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static java.util.Objects.requireNonNull;

/**
 * Every change to the {@code blocks} column family, and the syncs, under one write lock,
 * so each write picks the free slot of the entry it replaces; what the lock guards lives
 * here or in the helpers it runs ({@link Syncer}, {@link ScatteredGroups},
 * {@link ZeroMarkers}, {@link FreeSlots}, {@link GroupsWithoutBlockEntries}). Reads take
 * no lock (see {@link BlockReader}). Writes queued while the lock is taken run when it is
 * let go, and their index entries go to RocksDB in as few batches as can be.
 */
final class WritePipeline implements AutoCloseable {
    private static final int MARK_BATCH = 1024;
    private static final long SPIN_NANOS = 50_000;

    private final IndexDb index;
    private final BlockFiles files;
    private final IndexCache cache;
    private final IndexScan scan;
    private final DirtyLog dirtyLog;
    private final CombiningLock<QueuedWrite> lock = new CombiningLock<>(this::runWrites, QueuedWrite::complete);
    /** The index entries of the writes staged in {@link #runWrites}, cleared after each commit. */
    private final WriteBatch stagedBatch = new WriteBatch();
    private final FreeSlots freeSlots;
    private final GroupsWithoutBlockEntries withoutBlockEntries;
    private final ScatteredGroups scattered;
    private final ZeroMarkers zeroMarkers;
    private final Syncer syncer;

    WritePipeline(IndexDb index, BlockFiles files, IndexCache cache, IndexScan scan, DirtyLog dirtyLog) {
        this.index = requireNonNull(index, "index is null");
        this.files = requireNonNull(files, "files is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.scan = requireNonNull(scan, "scan is null");
        this.dirtyLog = requireNonNull(dirtyLog, "dirtyLog is null");
        freeSlots = new FreeSlots(scan::loadSlots);
        withoutBlockEntries = new GroupsWithoutBlockEntries(index, scan);
        scattered = new ScatteredGroups(index, files, cache, scan, freeSlots, withoutBlockEntries);
        zeroMarkers = new ZeroMarkers(index, cache, scan, freeSlots, withoutBlockEntries, dirtyLog);
        syncer = new Syncer(lock, index, files, freeSlots, scattered);
    }

    interface Locked {
        void run() throws RocksDBException;
    }

    /** Runs {@code action} under the write lock, then the writes queued meanwhile. */
    void locked(Locked action) throws RocksDBException {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    void write(long imageId, long firstBlock, ByteBuffer source, long version, Dirty dirty, boolean sync) {
        QueuedWrite write = new QueuedWrite(imageId, firstBlock, source, version, dirty, sync);
        List<QueuedWrite> ran = new ArrayList<>();
        lockForWrite();
        try {
            runWrites(new ArrayDeque<>(List.of(write)), ran);
        } finally {
            lock.unlock(ran);
        }
        if (write.failure != null) {
            throw write.failure;
        }
    }

    CompletableFuture<Void> queueWrite(long imageId, long firstBlock, ByteBuffer source, long version, Dirty dirty, boolean sync) {
        QueuedWrite write = new QueuedWrite(imageId, firstBlock, source, version, dirty, sync);
        lock.queue(write);
        return write.done;
    }

    void runQueuedWrites() {
        lock.runQueued();
    }

    /**
     * Runs the writes in {@code writes}, adding each to {@code ran} with its failure, if any.
     * Their index entries go to RocksDB in as few batches as can be. Blocks written since the
     * last sync, or by a write staged in the batch, go inline; a write that covers a whole
     * group, or touches a block of a staged one that does, has the batch committed first,
     * and if it rewrites blocks written since the sync, the store syncs too (see
     * {@link RocksBlockStore}): group entries have no inline form.
     */
    private void runWrites(Queue<QueuedWrite> writes, List<QueuedWrite> ran) {
        int first = ran.size();
        List<QueuedWrite> staged = new ArrayList<>();
        boolean synced = false;
        boolean sync = false;
        for (QueuedWrite write; (write = writes.poll()) != null; ) {
            ran.add(write);
            try {
                index.space.admit((long) write.count * BLOCK_SIZE);
                List<QueuedWrite> overlapped = overlapped(staged, write);
                if (!overlapped.isEmpty() && (write.coversGroup() || overlapped.stream().anyMatch(QueuedWrite::coversGroup))) {
                    commit(staged);
                    overlapped = List.of();
                }
                if (write.coversGroup() && freeSlots.unsynced(write.imageId, write.firstBlock, write.count)) {
                    commit(staged);
                    syncer.syncLocked();
                    synced = true;
                }
                place(write, overlapped);
            } catch (RuntimeException e) {
                write.failure = e;
                continue;
            }
            staged.add(write);
            try {
                index(write);
            } catch (RocksDBException | RuntimeException e) {
                drop(staged, e instanceof RocksDBException r ? IndexDb.failure("write image " + write.imageId, r) : (RuntimeException) e);
                continue;
            }
            sync |= write.sync;
        }
        try {
            commit(staged);
            synced |= syncer.afterWrites(sync);
        } catch (RuntimeException e) {
            // The entries are committed, but a write that asked for a sync, or whose blocks had to be synced, did not get one.
            ran.subList(first, ran.size()).forEach(write -> write.fail(e));
        }
        if (synced) {
            scattered.gather();
        }
    }

    /** The staged writes that touch a block of {@code write}. */
    private static List<QueuedWrite> overlapped(List<QueuedWrite> staged, QueuedWrite write) {
        List<QueuedWrite> overlapped = List.of();
        for (QueuedWrite other : staged) {
            if (other.overlaps(write)) {
                if (overlapped.isEmpty()) {
                    overlapped = new ArrayList<>();
                }
                overlapped.add(other);
            }
        }
        return overlapped;
    }

    private static boolean covered(List<QueuedWrite> writes, long block) {
        for (QueuedWrite write : writes) {
            if (write.covers(block)) {
                return true;
            }
        }
        return false;
    }

    /** Drops the staged writes and their batch, failing them. */
    private void drop(List<QueuedWrite> staged, RuntimeException failure) {
        staged.forEach(write -> write.fail(failure));
        staged.clear();
        stagedBatch.clear();
    }

    /**
     * Puts the write's blocks into free slots, each one the slot its current entry does not
     * point at; the blocks written since the last sync, or by the {@code overlapped} writes
     * staged before it, go inline. Those blocks' entries then come twice in one batch, and
     * the later one wins: the staged writes' slots, which the batch's commit marks written,
     * are taken by no other copy. A write that covers a whole group finds none of either:
     * it had the batch committed, and the store synced, first.
     */
    private void place(QueuedWrite write, List<QueuedWrite> overlapped) {
        int start = write.start;
        int count = write.count;
        int[] slots = new int[count];
        int[] crcs = new int[count];
        boolean[] heldData = new boolean[count];
        for (int i = 0; i < count; i++) {
            long block = write.firstBlock + i;
            boolean rewrite = freeSlots.unsynced(write.imageId, block) || covered(overlapped, block);
            slots[i] = rewrite ? INLINE : freeSlots.next(write.imageId, block);
            heldData[i] = freeSlots.nextHeldData(write.imageId, block);
            crcs[i] = checksum(write.source.slice(start + i * BLOCK_SIZE, BLOCK_SIZE));
        }
        files.writeRuns(write.imageId, write.firstBlock, write.source.slice(start, count * BLOCK_SIZE), slots, heldData, 0, count);
        write.source.position(start + count * BLOCK_SIZE);
        write.slots = slots;
        write.crcs = crcs;
    }

    /** Adds the write's index entries to the batch: one for each whole group it covers, one for each other block. */
    private void index(QueuedWrite write) throws RocksDBException {
        long imageId = write.imageId;
        long groupsFrom = write.groupsFrom();
        long groupsTo = write.groupsTo();
        byte[] dirtyEntry = DirtyLog.entry(write.version, STATE_DATA);
        for (int i = 0; i < write.count; i++) {
            long block = write.firstBlock + i;
            byte[] key = key(imageId, block);
            if (write.slots[i] == INLINE) {
                withoutBlockEntries.remove(imageId, block / GROUP);
                stagedBatch.put(index.inline, key, write.data(i));
                stagedBatch.put(index.blocks, key, dataEntry(write.version, INLINE, write.crcs[i]));
            } else if (block < groupsFrom || block >= groupsTo) {
                withoutBlockEntries.remove(imageId, block / GROUP);
                stagedBatch.put(index.blocks, key, dataEntry(write.version, write.slots[i], write.crcs[i]));
                if (freeSlots.inline(imageId, block)) {
                    stagedBatch.delete(index.inline, key);
                }
            } else if (block % GROUP == 0) {
                withoutBlockEntries.deleteBlockEntries(stagedBatch, imageId, block / GROUP);
                stagedBatch.put(index.blocks, groupKey(imageId, block / GROUP), dataGroupEntry(write.version, write.slots, write.crcs, i));
                scattered.wrote(imageId, block / GROUP, write.slots, i);
            }
            if (write.dirty == Dirty.RECORD) {
                dirtyLog.record(stagedBatch, key, dirtyEntry);
            }
        }
    }

    /** Commits the batch of the staged writes, then records where their blocks are now. */
    private void commit(List<QueuedWrite> staged) {
        if (staged.isEmpty()) {
            return;
        }
        try {
            index.write(stagedBatch);
        } catch (RocksDBException e) {
            drop(staged, IndexDb.failure("write image " + staged.get(0).imageId, e));
            return;
        }
        stagedBatch.clear();
        for (QueuedWrite write : staged) {
            cache.changed(write.imageId, write.firstBlock, write.count);
            for (long group = write.groupsFrom() / GROUP; group < write.groupsTo() / GROUP; group++) {
                withoutBlockEntries.add(write.imageId, group);
            }
            for (int i = 0; i < write.count; i++) {
                if (write.slots[i] == INLINE) {
                    freeSlots.wroteInline(write.imageId, write.firstBlock + i);
                } else {
                    freeSlots.wrote(write.imageId, write.firstBlock + i, write.slots[i]);
                }
            }
        }
        staged.clear();
    }

    /** Zero markers for the range's data blocks, some groups at a time under the write lock, so writes wait briefly. */
    void zero(long imageId, long firstBlock, long count, long version, Dirty dirty, boolean sync) {
        index.space.admit(0);
        long end = firstBlock + count;
        for (long next = firstBlock; next >= 0; ) {
            lockForWrite();
            try {
                next = zeroMarkers.zeroSome(imageId, next, firstBlock, end, version, dirty);
            } catch (RocksDBException e) {
                throw IndexDb.failure("zero image " + imageId, e);
            } finally {
                lock.unlock();
            }
        }
        if (sync) {
            sync();
        }
    }

    void zeroBlocks(long imageId, long[] blocks, long version, Dirty dirty, boolean sync) {
        index.space.admit(0);
        lockForWrite();
        try {
            long[] versions = new long[blocks.length];
            Arrays.fill(versions, version);
            zeroMarkers.zeroBlocks(imageId, blocks, versions, dirty);
            if (sync) {
                syncer.syncLocked();
            }
        } catch (RocksDBException e) {
            throw IndexDb.failure("zero blocks of image " + imageId, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stores the copies that {@code rule} accepts against their blocks' local versions, read
     * under the write lock, so no write of the same blocks comes between check and store:
     * zero markers first, then the data copies as writes, which sync if asked, and so make
     * the markers durable too.
     */
    boolean[] storeCopies(long imageId, List<Copy> copies, CopyRule rule, boolean sync) {
        index.space.admit(0);
        AcceptedCopies accepted;
        List<QueuedWrite> ran = new ArrayList<>();
        lockForWrite();
        try {
            long[] blocks = copies.stream().mapToLong(Copy::block).toArray();
            accepted = new AcceptedCopies(imageId, copies, rule, scan.entries(imageId, blocks), sync);
            if (accepted.zeroBlocks.length > 0) {
                zeroMarkers.zeroBlocks(imageId, accepted.zeroBlocks, accepted.zeroVersions, Dirty.SKIP);
            }
            if (accepted.writes.isEmpty() && sync) {
                syncer.syncLocked();
            }
            runWrites(new ArrayDeque<>(accepted.writes), ran);
        } catch (RocksDBException e) {
            throw IndexDb.failure("store copies in image " + imageId, e);
        } finally {
            lock.unlock(ran);
        }
        accepted.throwFailure();
        return accepted.stored;
    }

    /** Returns once every storeCopies that holds the lock now has released it. */
    void awaitStoredCopies() {
        lock.lock();
        lock.unlock();
    }

    /** Forgets dirty entries that still hold these versions; exclusive, in batches, so I/O waits briefly. */
    void markFlushed(long imageId, List<BlockVersion> flushed) {
        for (int from = 0; from < flushed.size(); from += MARK_BATCH) {
            List<BlockVersion> batch = flushed.subList(from, Math.min(flushed.size(), from + MARK_BATCH));
            try {
                locked(() -> dirtyLog.forget(imageId, batch));
            } catch (RocksDBException e) {
                throw IndexDb.failure("mark blocks of image " + imageId + " flushed", e);
            }
        }
    }

    /**
     * Takes the write lock, spinning for up to {@value #SPIN_NANOS} ns before waiting: a write
     * holds it for a few microseconds, and a thread that parks costs a wake-up from another
     * CPU, tens of microseconds on a VM (random 4 KiB writes on two connections: 101K/s
     * parking at once, 120K/s spinning first).
     */
    private void lockForWrite() {
        if (lock.tryLock()) {
            return;
        }
        long deadline = System.nanoTime() + SPIN_NANOS;
        while (System.nanoTime() < deadline) {
            Thread.onSpinWait();
            if (lock.tryLock()) {
                return;
            }
        }
        lock.lock();
    }

    void sync() {
        syncer.sync();
    }

    /** See {@link Syncer#writeDurably}. */
    void writeDurably(WriteBatch batch) throws RocksDBException {
        syncer.writeDurably(batch);
    }

    /** How many times the store has synced, for tests. */
    long syncs() {
        return syncer.syncs();
    }

    /** Drops what the pipeline knows of an image, after it was deleted or shrunk. */
    void forget(long imageId) {
        lock.lock();
        try {
            freeSlots.forget(imageId);
            withoutBlockEntries.forget(imageId);
            scattered.forget(imageId);
        } finally {
            lock.unlock();
        }
    }

    /** Lets a background sync end, then runs the queued writes and syncs. */
    @Override
    public void close() {
        try {
            syncer.close();
            syncer.sync();
        } finally {
            stagedBatch.close();
        }
    }
}
