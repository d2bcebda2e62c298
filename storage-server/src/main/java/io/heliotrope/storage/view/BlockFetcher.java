package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Brings a block's committed version from the site that holds it into this site's store
 * (DESIGN.md section 5), for a {@link DataView} whose local copy of the block is not current.
 */
public interface BlockFetcher {
    /**
     * Brings these committed versions here: one future per block, in order, each completing
     * once this site's store holds the block at that version, or keeps a local copy that
     * {@code replace} refuses to replace (a write made here meanwhile), or failing with our
     * error. Must not block the caller.
     */
    List<CompletableFuture<Void>> fetch(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace);

    /**
     * As {@link #fetch}, for a background pull: joins and is joined by the fetches of the same
     * blocks, versions and rule, but what it asks itself travels apart from foreground fetches
     * (connections and a pool of its own at the holder), so that they never queue behind it.
     */
    default List<CompletableFuture<Void>> fetchInBackground(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace) {
        return fetch(image, blocks, replace);
    }

    /** Whether a fetch of this block, at this version and under this rule, is on its way now. */
    default boolean inFlight(ImageInfo image, GlobalBlock block, CopyRule replace) {
        return false;
    }
}
