package io.heliotrope.storage.heat;

import io.heliotrope.storage.ImageInfo;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where a new holder of an image learns what the previous holders read and wrote most
 * (DESIGN.md section 4): it asks the other sites, which from then on stop pushing the image to it.
 */
public interface HeatSource {
    /** Knows no heat: a site without peers. */
    HeatSource NONE = (image, askingEpoch, maxBlocks) -> CompletableFuture.completedFuture(List.of());

    /**
     * Asks every other site for its heat of the image. Completes with the answers of sessions
     * older than {@code holderEpoch} that know some heat, the newest epoch first; a site that
     * fails or does not answer in time is left out. Never fails; does not block.
     */
    CompletableFuture<List<Heat>> heat(ImageInfo image, long holderEpoch, int maxBlocks);
}
