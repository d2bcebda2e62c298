package io.heliotrope.controller.catalog;

import io.heliotrope.controller.Names;

import static java.util.Objects.requireNonNull;

/** A catalog entry: what an image is, fixed at creation. */
public record ImageConfig(
        String name,
        long sizeBytes,
        int blockSize,
        long createdEpochMillis,
        PropagationMode mode,
        int k,
        int s,
        TransitionTable transitions) {
    public static final int BLOCK_SIZE = 4096;

    public ImageConfig {
        Names.image(name);
        requireNonNull(mode, "mode is null");
        requireNonNull(transitions, "transitions is null");
    }

    /** The number of blocks; valid block indexes are below it. */
    public long blocks() {
        return sizeBytes / blockSize;
    }
}
