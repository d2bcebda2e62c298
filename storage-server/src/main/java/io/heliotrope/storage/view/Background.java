package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.GlobalBlock;

import java.util.List;

/**
 * What an open image does in the background while a session holds it here (DESIGN.md
 * section 4): the pull of the blocks whose current version is only elsewhere.
 */
public interface Background {
    /** Does nothing: an image that is not pulled. */
    Background NONE = new Background() {
        @Override
        public void missed(List<GlobalBlock> blocks) {
        }

        @Override
        public void stop() {
        }
    };

    /** A foreground read is fetching these stale entries now (its own misses, not read-ahead). Does not block. */
    void missed(List<GlobalBlock> blocks);

    /** Stops at once and for good, before the session closes: nothing more is asked. Idempotent. */
    void stop();

    /** Starts the background work of a data view. */
    @FunctionalInterface
    interface Factory {
        /** Starts nothing. */
        Factory NONE = (session, target) -> Background.NONE;

        /** Starts the background work of {@code session}, which brings blocks here through {@code target}. Does not block. */
        Background open(ImageSession session, PullTarget target);
    }
}
