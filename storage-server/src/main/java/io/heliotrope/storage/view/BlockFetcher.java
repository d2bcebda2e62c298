package io.heliotrope.storage.view;

import io.heliotrope.storage.ImageInfo;

import java.util.concurrent.CompletableFuture;

/**
 * Brings a block's committed version from the site that holds it into this site's store
 * (DESIGN.md section 5), for a {@link DataView} whose local copy of the block is not current.
 */
public interface BlockFetcher {
    /**
     * Completes once this site's store holds {@code block} of {@code image} at
     * {@code version}, as {@code holder} has it; fails with our error otherwise.
     * Must not block the caller.
     */
    CompletableFuture<Void> fetch(ImageInfo image, long block, long version, String holder);
}
