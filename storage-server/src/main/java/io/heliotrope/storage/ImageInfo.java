package io.heliotrope.storage;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import static java.util.Objects.requireNonNull;

/** An image as the store knows it: a local id, its name, size and creation time (to the millisecond). */
public record ImageInfo(long id, String name, long sizeBytes, Instant created) {
    public ImageInfo {
        requireNonNull(name, "name is null");
        // Stores keep milliseconds: an image reads back equal to the one created.
        created = requireNonNull(created, "created is null").truncatedTo(ChronoUnit.MILLIS);
    }

    public long blockCount() {
        return sizeBytes / BlockStore.BLOCK_SIZE;
    }
}
