package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.ImageNames;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;

import static io.heliotrope.image.ImageNames.check;
import static io.heliotrope.storage.ImageNames.checkSize;
import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;
import static io.heliotrope.storage.rocksdb.IndexDb.bytes;
import static io.heliotrope.storage.rocksdb.IndexDb.longBytes;
import static io.heliotrope.storage.rocksdb.IndexEntries.groupKey;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static io.heliotrope.storage.rocksdb.IndexEntries.ofGroup;
import static java.util.Objects.requireNonNull;

/**
 * The images of a {@link RocksBlockStore}: the {@code images} column family, and a copy in
 * memory so that catalog reads never touch RocksDB, written through under one lock. Every
 * change is durable when it returns. Removing an image, or shrinking it, drops its keys in
 * every family keyed by block and its blocks' slots in the block files.
 */
final class Catalog {
    private static final byte[] NEXT_IMAGE_ID = bytes("next-image-id");

    private final IndexDb index;
    private final BlockFiles files;
    private final IndexCache cache;
    private final IndexScan scan;
    private final WritePipeline pipeline;
    private final Object lock = new Object();
    private final Map<String, ImageRecord> records = new ConcurrentSkipListMap<>();

    Catalog(IndexDb index, BlockFiles files, IndexCache cache, IndexScan scan, WritePipeline pipeline) {
        this.index = requireNonNull(index, "index is null");
        this.files = requireNonNull(files, "files is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.scan = requireNonNull(scan, "scan is null");
        this.pipeline = requireNonNull(pipeline, "pipeline is null");
        index.forEach(index.images, (key, value) -> {
            String name = new String(key, StandardCharsets.UTF_8);
            records.put(name, ImageRecord.decode(name, value));
        });
    }

    ImageInfo create(String name, long sizeBytes, UUID identity) {
        check(name);
        checkSize(sizeBytes);
        synchronized (lock) {
            if (records.containsKey(name)) {
                throw ImageNames.exists(name);
            }
            long id = nextImageId();
            ImageRecord record = new ImageRecord(new ImageInfo(id, name, sizeBytes, Instant.now(), identity), 0);
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(index.counters, NEXT_IMAGE_ID, longBytes(id + 1));
                batch.put(index.images, bytes(name), record.encode());
                pipeline.writeDurably(batch);
            } catch (RocksDBException e) {
                throw IndexDb.failure("create image " + name, e);
            }
            records.put(name, record);
            return record.info();
        }
    }

    List<ImageInfo> list() {
        return records.values().stream().map(ImageRecord::info).toList();
    }

    ImageInfo image(String name) {
        ImageRecord record = records.get(name);
        if (record == null) {
            throw ImageNames.notFound(name);
        }
        return record.info();
    }

    void delete(String name) {
        synchronized (lock) {
            long id = image(name).id();
            try (WriteBatch batch = new WriteBatch()) {
                batch.delete(index.images, bytes(name));
                batch.delete(index.counters, RocksViewCache.metaSeqKey(id));
                batch.delete(index.counters, RocksViewCache.fenceKey(id));
                for (ColumnFamilyHandle family : index.blockFamilies()) {
                    batch.deleteRange(family, key(id, 0), key(id + 1, 0));
                }
                pipeline.writeDurably(batch);
            } catch (RocksDBException e) {
                throw IndexDb.failure("delete image " + name, e);
            }
            cache.changedAll();
            records.remove(name);
            pipeline.forget(id);
            files.delete(id);
        }
    }

    ImageInfo resize(String name, long sizeBytes) {
        checkSize(sizeBytes);
        synchronized (lock) {
            ImageRecord record = records.get(name);
            if (record == null) {
                throw ImageNames.notFound(name);
            }
            ImageInfo old = record.info();
            ImageInfo resized = old.resized(sizeBytes);
            boolean shrink = sizeBytes < old.sizeBytes();
            try {
                pipeline.locked(() -> {
                    try (WriteBatch batch = new WriteBatch()) {
                        if (shrink) {
                            for (ColumnFamilyHandle family : index.blockFamilies()) {
                                batch.deleteRange(family, key(old.id(), resized.blockCount()), key(old.id() + 1, 0));
                            }
                            splitCutGroup(batch, old.id(), resized.blockCount());
                        }
                        ImageRecord updated = new ImageRecord(resized, record.epoch());
                        batch.put(index.images, bytes(name), updated.encode());
                        pipeline.writeDurably(batch);
                        records.put(name, updated);
                    }
                    if (shrink) {
                        cache.changedAll();
                        pipeline.forget(old.id());
                    }
                    files.resize(old.id(), resized.blockCount());
                });
            } catch (RocksDBException e) {
                throw IndexDb.failure("resize image " + name, e);
            }
            return resized;
        }
    }

    /** Replaces the entry of a group that the new end cuts by entries for its blocks before the end. */
    private void splitCutGroup(WriteBatch batch, long imageId, long blockCount) throws RocksDBException {
        long groupFirst = blockCount / GROUP * GROUP;
        if (groupFirst == blockCount) {
            return;
        }
        scan.forEachGroup(imageId, groupFirst, blockCount, 1, (first, groupEntry, own) -> {
            if (groupEntry != null) {
                for (int i = 0; i < blockCount - first; i++) {
                    if (own[i] == null) {
                        batch.put(index.blocks, key(imageId, first + i), ofGroup(groupEntry, i));
                    }
                }
                batch.delete(index.blocks, groupKey(imageId, first / GROUP));
            }
        });
    }

    /** Starts a write session: a session epoch larger than any before for this image. */
    long beginSession(long imageId) {
        synchronized (lock) {
            ImageRecord record = record(imageId);
            ImageRecord next = new ImageRecord(record.info(), record.epoch() + 1);
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(index.images, bytes(record.info().name()), next.encode());
                pipeline.writeDurably(batch);
            } catch (RocksDBException e) {
                throw IndexDb.failure("begin session of image " + record.info().name(), e);
            }
            records.put(record.info().name(), next);
            return next.epoch();
        }
    }

    long blockCount(long imageId) {
        return record(imageId).info().blockCount();
    }

    private ImageRecord record(long imageId) {
        for (ImageRecord record : records.values()) {
            if (record.info().id() == imageId) {
                return record;
            }
        }
        throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image id " + imageId + " does not exist");
    }

    private long nextImageId() {
        try {
            byte[] value = index.get(index.counters, NEXT_IMAGE_ID);
            return value == null ? 1 : ByteBuffer.wrap(value).getLong();
        } catch (RocksDBException e) {
            throw IndexDb.failure("read image id counter", e);
        }
    }
}
