package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.GlobalBlock;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where a background pull brings blocks: the image's {@link DataView}, so that the pull
 * shares its fetches with foreground reads (one in flight per block and version), stores a
 * copy only where a foreground read's fetch would, and marks the block current as one does.
 */
public interface PullTarget {
    /**
     * Brings these stale entries (data, not zero markers) here in the background: one future
     * per block, in order, completing once the block is current here or a write made here
     * meanwhile won, failing as {@link BlockFetcher#fetch} does. Does not block.
     */
    List<CompletableFuture<Void>> pull(List<GlobalBlock> blocks);

    /**
     * Whether a fetch of this stale entry is on its way already (a client's read, read-ahead):
     * the pull leaves it to that fetch, so that each of its own batches crosses the WAN and its
     * latency measures the path.
     */
    boolean inFlight(GlobalBlock block);
}
