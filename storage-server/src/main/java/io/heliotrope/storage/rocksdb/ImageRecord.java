package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.ImageInfo;

import java.nio.ByteBuffer;
import java.time.Instant;

/** The catalog value of an image: {@code id(8) | size(8) | created millis(8) | session epoch(8)}. */
record ImageRecord(ImageInfo info, long epoch) {
    byte[] encode() {
        return ByteBuffer.allocate(32)
                .putLong(info.id())
                .putLong(info.sizeBytes())
                .putLong(info.created().toEpochMilli())
                .putLong(epoch)
                .array();
    }

    static ImageRecord decode(String name, byte[] value) {
        ByteBuffer buffer = ByteBuffer.wrap(value);
        ImageInfo info = new ImageInfo(buffer.getLong(), name, buffer.getLong(), Instant.ofEpochMilli(buffer.getLong()));
        return new ImageRecord(info, buffer.getLong());
    }
}
