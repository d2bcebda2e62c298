package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.Dirty;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;

/** A write on its way through the {@link WritePipeline}; its blocks' slots and checksums once they are placed. */
final class QueuedWrite {
    final long imageId;
    final long firstBlock;
    final ByteBuffer source;
    /** Where the write's data starts in {@code source}. */
    final int start;
    final long version;
    final Dirty dirty;
    final boolean sync;
    final int count;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    int[] slots;
    int[] crcs;
    RuntimeException failure;

    QueuedWrite(long imageId, long firstBlock, ByteBuffer source, long version, Dirty dirty, boolean sync) {
        this.imageId = imageId;
        this.firstBlock = firstBlock;
        this.source = source;
        this.start = source.position();
        this.version = version;
        this.dirty = dirty;
        this.sync = sync;
        this.count = source.remaining() / BLOCK_SIZE;
    }

    void complete() {
        if (failure == null) {
            done.complete(null);
        } else {
            done.completeExceptionally(failure);
        }
    }

    /** Fails the write, unless it failed already. */
    void fail(RuntimeException failure) {
        if (this.failure == null) {
            this.failure = failure;
        }
    }

    boolean overlaps(QueuedWrite other) {
        return imageId == other.imageId && firstBlock < other.firstBlock + other.count && other.firstBlock < firstBlock + count;
    }

    /** Whether the write covers {@code block} of its image. */
    boolean covers(long block) {
        return firstBlock <= block && block < firstBlock + count;
    }

    /** Whether the write covers a whole group, so it has a group entry. */
    boolean coversGroup() {
        return groupsTo() > groupsFrom();
    }

    /** The first block of the first whole group the write covers; blocks before it get entries of their own. */
    long groupsFrom() {
        return (firstBlock + GROUP - 1) / GROUP * GROUP;
    }

    /** The end of the last whole group the write covers, at least {@link #groupsFrom()}. */
    long groupsTo() {
        return Math.max(groupsFrom(), (firstBlock + count) / GROUP * GROUP);
    }

    /** Block {@code i}'s data. */
    byte[] data(int i) {
        byte[] data = new byte[BLOCK_SIZE];
        source.get(start + i * BLOCK_SIZE, data);
        return data;
    }
}
