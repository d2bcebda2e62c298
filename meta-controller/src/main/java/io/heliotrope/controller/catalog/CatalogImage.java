package io.heliotrope.controller.catalog;

import io.heliotrope.controller.lease.LeaseMoves;

import static java.util.Objects.requireNonNull;

/** An image as the catalog answers for it: its configuration and the lease moves observed so far. */
public record CatalogImage(ImageConfig config, LeaseMoves moves) {
    public CatalogImage {
        requireNonNull(config, "config is null");
        requireNonNull(moves, "moves is null");
    }

    /** The table sites use: the configured hint learned from the moves ({@link TransitionTable#blend}). */
    public TransitionTable transitions() {
        return config.transitions().blend(moves);
    }
}
