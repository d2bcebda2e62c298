package io.heliotrope.controller.catalog;

import io.heliotrope.image.ImageNames;

import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * A catalog entry: what an image is, fixed at creation. {@code uuid} is the image's
 * identity: random at creation, never reused, so that an image removed and created again
 * under its name is another image to every site. Sites key their copies by it, not by the
 * name. Null only in a config written before identities, which {@link ImageCatalog}
 * gives one on its first read.
 */
public record ImageConfig(
        String name,
        long sizeBytes,
        int blockSize,
        long createdEpochMillis,
        PropagationMode mode,
        int k,
        int s,
        TransitionTable transitions,
        UUID uuid) {
    public static final int BLOCK_SIZE = 4096;

    public ImageConfig {
        ImageNames.check(name);
        requireNonNull(mode, "mode is null");
        requireNonNull(transitions, "transitions is null");
    }

    public ImageConfig withUuid(UUID uuid) {
        return new ImageConfig(name, sizeBytes, blockSize, createdEpochMillis, mode, k, s, transitions, requireNonNull(uuid, "uuid is null"));
    }

    /** The number of blocks; valid block indexes are below it. */
    public long blocks() {
        return sizeBytes / blockSize;
    }
}
