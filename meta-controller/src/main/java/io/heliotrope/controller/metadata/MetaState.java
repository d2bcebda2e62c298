package io.heliotrope.controller.metadata;

/**
 * The {@code meta} znode of an image: the newest committed delta ({@code metaSeq}), the
 * delta the newest snapshot covers ({@code snapshotSeq}, 0: none), and byte counts.
 * {@code loggedBytes} counts every log record ever committed; the log currently holds
 * {@code loggedBytes - loggedBytesAtSnapshot} of them. Every commit and every compaction
 * writes it with a version check, which orders them.
 */
public record MetaState(long metaSeq, long snapshotSeq, long snapshotBytes, long loggedBytes, long loggedBytesAtSnapshot) {
    public static final MetaState EMPTY = new MetaState(0, 0, 0, 0, 0);

    public long logRecords() {
        return metaSeq - snapshotSeq;
    }

    public long logBytes() {
        return loggedBytes - loggedBytesAtSnapshot;
    }

    /** Bytes of committed metadata in ZooKeeper: the snapshot and the log, chunks included. */
    public long metadataBytes() {
        return snapshotBytes + logBytes();
    }

    MetaState committed(long recordBytes) {
        return new MetaState(metaSeq + 1, snapshotSeq, snapshotBytes, loggedBytes + recordBytes, loggedBytesAtSnapshot);
    }

    MetaState compacted(long seq, long bytes, long loggedBytesAtSeq) {
        return new MetaState(metaSeq, seq, bytes, loggedBytes, loggedBytesAtSeq);
    }
}
