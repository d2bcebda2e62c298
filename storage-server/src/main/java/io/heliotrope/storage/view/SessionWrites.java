package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockVersion;

import java.util.List;

/**
 * Where a write session's flushes take the blocks it wrote and has not flushed yet, and
 * which site they name as holding them (DESIGN.md section 4): this site's store and this
 * site, or, in the {@code remote} mode away from the image's home, the session's memory
 * and the home ({@link RemoteWrites}). Chosen when the session opens.
 */
public interface SessionWrites {
    /** The site that stores the blocks, which a flush names as their holder. */
    String holder();

    /** The blocks written and not flushed yet, of any epoch, in block order. */
    List<BlockVersion> unflushed();

    /** A flush of {@code flushed} committed at {@code metaSeq}: they are no longer unflushed. */
    void committed(long metaSeq, List<BlockVersion> flushed);

    /** The writes of a session in this site's store: its dirty set, held by {@code site}. */
    public static SessionWrites inStore(BlockStore store, ViewCache view, long imageId, String site) {
        return new SessionWrites() {
            @Override
            public String holder() {
                return site;
            }

            @Override
            public List<BlockVersion> unflushed() {
                return store.dirtyBlocks(imageId);
            }

            @Override
            public void committed(long metaSeq, List<BlockVersion> flushed) {
                StaleBlocks.committed(store, view, imageId, site, metaSeq, flushed);
            }
        };
    }
}
