package io.heliotrope.storage;

import java.time.Instant;

import static java.util.Objects.requireNonNull;

/** An image as the store knows it: a local id, its name, size and creation time. */
public record ImageInfo(long id, String name, long sizeBytes, Instant created) {
    public ImageInfo {
        requireNonNull(name, "name is null");
        requireNonNull(created, "created is null");
    }

    public long blockCount() {
        return sizeBytes / BlockStore.BLOCK_SIZE;
    }
}
