package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.view.ViewCache;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

import static io.heliotrope.storage.rocksdb.IndexDb.bytes;
import static io.heliotrope.storage.rocksdb.IndexDb.longBytes;
import static io.heliotrope.storage.rocksdb.IndexEntries.key;
import static java.util.Objects.requireNonNull;

/**
 * The view cache of a {@link RocksBlockStore}, in its database: the {@code view} column
 * family, block key to {@code version(8) | holder} (UTF-8, empty for a zero marker), and
 * each image's metaSeq and fence among the counters. Every change is durable when it returns.
 */
final class RocksViewCache implements ViewCache {
    private static final byte[] META_SEQ = bytes("view-seq:");
    private static final byte[] FENCE = bytes("fence:");

    private final IndexDb index;
    private final WritePipeline pipeline;

    RocksViewCache(IndexDb index, WritePipeline pipeline) {
        this.index = requireNonNull(index, "index is null");
        this.pipeline = requireNonNull(pipeline, "pipeline is null");
    }

    /** The counter that holds an image's metaSeq. */
    static byte[] metaSeqKey(long imageId) {
        return ByteBuffer.allocate(META_SEQ.length + 8).put(META_SEQ).putLong(imageId).array();
    }

    /** The counter that holds an image's fence. */
    static byte[] fenceKey(long imageId) {
        return ByteBuffer.allocate(FENCE.length + 8).put(FENCE).putLong(imageId).array();
    }

    @Override
    public long metaSeq(long imageId) {
        return counter(metaSeqKey(imageId), imageId);
    }

    @Override
    public long fence(long imageId) {
        return counter(fenceKey(imageId), imageId);
    }

    /** Raised by one caller at a time: the site's recoveries are rare, and a lower fence must not overwrite a higher one. */
    @Override
    public synchronized long raiseFence(long imageId, long belowEpoch) {
        long fence = fence(imageId);
        if (belowEpoch <= fence) {
            return fence;
        }
        try (WriteBatch batch = new WriteBatch()) {
            batch.put(index.counters, fenceKey(imageId), longBytes(belowEpoch));
            pipeline.writeDurably(batch);
        } catch (RocksDBException e) {
            throw IndexDb.failure("fence image " + imageId, e);
        }
        return belowEpoch;
    }

    private long counter(byte[] key, long imageId) {
        try {
            byte[] value = index.get(index.counters, key);
            return value == null ? 0 : ByteBuffer.wrap(value).getLong();
        } catch (RocksDBException e) {
            throw IndexDb.failure("read the view of image " + imageId, e);
        }
    }

    @Override
    public GlobalBlock entry(long imageId, long block) {
        try {
            byte[] value = index.get(index.view, key(imageId, block));
            return value == null ? null : decode(block, value);
        } catch (RocksDBException e) {
            throw IndexDb.failure("read the view of image " + imageId, e);
        }
    }

    @Override
    public void forEachEntry(long imageId, Consumer<GlobalBlock> visitor) {
        index.scan(index.view, imageId, (block, value) -> visitor.accept(decode(block, value)));
    }

    private static GlobalBlock decode(long block, byte[] value) {
        String holder = new String(value, 8, value.length - 8, StandardCharsets.UTF_8);
        return new GlobalBlock(block, ByteBuffer.wrap(value).getLong(), holder.isEmpty() ? null : holder);
    }

    @Override
    public void apply(long imageId, long metaSeq, boolean replace, List<GlobalBlock> entries) {
        try (WriteBatch batch = new WriteBatch()) {
            if (replace) {
                batch.deleteRange(index.view, key(imageId, 0), key(imageId + 1, 0));
            }
            for (GlobalBlock entry : entries) {
                byte[] holder = entry.zero() ? new byte[0] : bytes(entry.holder());
                batch.put(index.view, key(imageId, entry.block()), ByteBuffer.allocate(8 + holder.length).putLong(entry.version()).put(holder).array());
            }
            batch.put(index.counters, metaSeqKey(imageId), longBytes(metaSeq));
            pipeline.writeDurably(batch);
        } catch (RocksDBException e) {
            throw IndexDb.failure("update the view of image " + imageId, e);
        }
    }
}
