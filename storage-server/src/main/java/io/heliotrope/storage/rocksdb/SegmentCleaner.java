package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.segment.SegmentLog;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static java.util.Objects.requireNonNull;

/**
 * Segment cleaning for {@link RocksBlockStore}: once the segments hold over twice the
 * live data, moves the live blocks of the oldest sealed segment to the active one,
 * makes the move durable, then deletes the old segment. Runs on its own thread, once a
 * second while there is work; moves take the store's lock exclusively, a batch at a time.
 */
final class SegmentCleaner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SegmentCleaner.class);
    private static final int MOVE_BATCH = 256;
    private static final long RECOUNT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final RocksDB db;
    private final ColumnFamilyHandle blocks;
    private final SegmentLog segments;
    private final ReentrantReadWriteLock lock;
    private final Runnable sync;
    private final long segmentBytes;
    private final WriteOptions asyncWrite = new WriteOptions();
    private final ScheduledExecutorService executor;
    private long liveBlocks;
    private long countedAt;

    SegmentCleaner(RocksDB db, ColumnFamilyHandle blocks, SegmentLog segments, ReentrantReadWriteLock lock, Runnable sync, long segmentBytes) {
        this.db = requireNonNull(db, "db is null");
        this.blocks = requireNonNull(blocks, "blocks is null");
        this.segments = requireNonNull(segments, "segments is null");
        this.lock = requireNonNull(lock, "lock is null");
        this.sync = requireNonNull(sync, "sync is null");
        this.segmentBytes = segmentBytes;
        executor = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("segment-cleaner", true));
        executor.scheduleWithFixedDelay(this::cleanWhileWorthIt, 1, 1, TimeUnit.SECONDS);
    }

    private void cleanWhileWorthIt() {
        try {
            while (worthCleaning() && cleanOldestSegment()) {
                log.debug("cleaned a segment; {} bytes in segments now", segments.totalBytes());
            }
        } catch (RuntimeException e) {
            log.error("segment cleaning failed; will try again", e);
        }
    }

    /** True when the segments hold over twice the live data, plus two segments of slack. */
    private boolean worthCleaning() {
        return segments.totalBytes() > 2 * liveBlocks() * SegmentLog.RECORD + 2 * segmentBytes;
    }

    /**
     * Blocks whose index entry points at data, counted by a scan of the index at most
     * every few seconds. RocksDB's key estimate would be cheaper but counts overwritten
     * entries not yet compacted, which let the log grow far past twice the live data.
     */
    private long liveBlocks() {
        long now = System.nanoTime();
        if (countedAt == 0 || now - countedAt > RECOUNT_NANOS) {
            long count = 0;
            try (RocksIterator iterator = db.newIterator(blocks)) {
                for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                    if (RocksBlockStore.location(iterator.value()) != null) {
                        count++;
                    }
                }
            }
            liveBlocks = count;
            countedAt = now;
        }
        return liveBlocks;
    }

    /**
     * Moves the live blocks of the oldest sealed segment to the active one, makes the
     * move durable, then deletes the old segment. Returns false when no segment is sealed.
     */
    boolean cleanOldestSegment() {
        List<Integer> sealed = segments.sealedSegments();
        if (sealed.isEmpty()) {
            return false;
        }
        int segment = sealed.get(0);
        // Find and copy the live records without the lock: only the cleaner deletes segments.
        List<SegmentLog.Record> live = new ArrayList<>();
        ByteBuffer data = ByteBuffer.allocateDirect(MOVE_BATCH * SegmentLog.BLOCK);
        segments.scan(segment, (record, block) -> {
            if (currentValue(record) != null) {
                live.add(record);
                data.put(block);
                if (live.size() == MOVE_BATCH) {
                    move(segment, live, data.flip());
                    live.clear();
                    data.clear();
                }
            }
        });
        move(segment, live, data.flip());
        lock.writeLock().lock();
        try {
            sync.run();
            segments.delete(segment);
        } finally {
            lock.writeLock().unlock();
        }
        return true;
    }

    /** Under the lock, moves those of {@code live} still current (a write may have replaced some meanwhile). */
    private void move(int segment, List<SegmentLog.Record> live, ByteBuffer data) {
        lock.writeLock().lock();
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < live.size(); i++) {
                SegmentLog.Record record = live.get(i);
                byte[] value = currentValue(record);
                if (value != null) {
                    long version = ByteBuffer.wrap(value).getLong();
                    ByteBuffer block = data.slice(i * SegmentLog.BLOCK, SegmentLog.BLOCK);
                    SegmentLog.Location moved = segments.append(record.imageId(), record.block(), version, block).get(0);
                    batch.put(blocks, RocksBlockStore.key(record.imageId(), record.block()), RocksBlockStore.dataMeta(version, moved));
                }
            }
            db.write(asyncWrite, batch);
        } catch (RocksDBException e) {
            throw RocksBlockStore.failure("move blocks out of segment " + segment, e);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The record's index entry while the index still points at this record, else null. */
    private byte[] currentValue(SegmentLog.Record record) {
        try {
            byte[] value = db.get(blocks, RocksBlockStore.key(record.imageId(), record.block()));
            return value != null && record.location().equals(RocksBlockStore.location(value)) ? value : null;
        } catch (RocksDBException e) {
            throw RocksBlockStore.failure("look up block " + record.block() + " of image " + record.imageId(), e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("segment cleaner did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            asyncWrite.close();
        }
    }
}
