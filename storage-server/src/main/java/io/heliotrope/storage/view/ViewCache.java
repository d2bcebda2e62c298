package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.GlobalBlock;

import java.util.List;
import java.util.function.Consumer;

/**
 * The global metadata of each image as this site last synced it from the controller, up
 * to a metaSeq, kept beside the block store so that an open fetches only the deltas
 * since (DESIGN.md sections 3 and 5). The block store that provides it drops an
 * image's entries with the image, and those beyond the end when it shrinks.
 */
public interface ViewCache {
    /** The metaSeq of the cached global metadata of an image (0: none cached). */
    long metaSeq(long imageId);

    /** The cached entry of one block, or null when the view has none (never written, as far as it knows). */
    GlobalBlock entry(long imageId, long block);

    /** Calls {@code visitor} for every cached entry of an image, in block order. */
    void forEachEntry(long imageId, Consumer<GlobalBlock> visitor);

    /**
     * Applies global metadata up to {@code metaSeq}, replacing what is cached when
     * {@code replace}; later entries for a block win.
     */
    void apply(long imageId, long metaSeq, boolean replace, List<GlobalBlock> entries);

    /**
     * The epoch below which pushed copies of the image are refused (0: none): the epochs of a
     * dead sync holding, fenced here by the site that recovers it, so that a late push from
     * the dead writer never replaces a copy the recovery committed.
     */
    long fence(long imageId);

    /** Raises the fence to {@code belowEpoch}, durably; a fence never goes down. Returns the fence now in force. */
    long raiseFence(long imageId, long belowEpoch);
}
