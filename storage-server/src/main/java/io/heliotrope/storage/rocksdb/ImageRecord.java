package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.ImageInfo;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.UUID;

/**
 * The catalog value of an image: {@code id(8) | size(8) | created millis(8) | session epoch(8)},
 * then {@code identity(16)} for a copy of a controller's image. Records written before
 * identities end after the epoch and decode with none.
 */
record ImageRecord(ImageInfo info, long epoch) {
    private static final int WITHOUT_IDENTITY = 32;
    private static final int WITH_IDENTITY = 48;

    byte[] encode() {
        UUID identity = info.identity();
        ByteBuffer buffer = ByteBuffer.allocate(identity == null ? WITHOUT_IDENTITY : WITH_IDENTITY)
                .putLong(info.id())
                .putLong(info.sizeBytes())
                .putLong(info.created().toEpochMilli())
                .putLong(epoch);
        if (identity != null) {
            buffer.putLong(identity.getMostSignificantBits()).putLong(identity.getLeastSignificantBits());
        }
        return buffer.array();
    }

    static ImageRecord decode(String name, byte[] value) {
        ByteBuffer buffer = ByteBuffer.wrap(value);
        long id = buffer.getLong();
        long sizeBytes = buffer.getLong();
        Instant created = Instant.ofEpochMilli(buffer.getLong());
        long epoch = buffer.getLong();
        UUID identity = value.length >= WITH_IDENTITY ? new UUID(buffer.getLong(), buffer.getLong()) : null;
        return new ImageRecord(new ImageInfo(id, name, sizeBytes, created, identity), epoch);
    }
}
