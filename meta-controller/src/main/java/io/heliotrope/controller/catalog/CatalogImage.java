package io.heliotrope.controller.catalog;

import io.heliotrope.controller.lease.LeaseMoves;

import static java.util.Objects.requireNonNull;

/**
 * An image as the catalog answers for it: its configuration, the lease moves observed so
 * far and the fleet's default rows ({@link SitePrior}; empty as the catalog reads it, the
 * controller adds it before it answers).
 */
public record CatalogImage(ImageConfig config, LeaseMoves moves, TransitionTable prior) {
    public CatalogImage {
        requireNonNull(config, "config is null");
        requireNonNull(moves, "moves is null");
        requireNonNull(prior, "prior is null");
    }

    public CatalogImage(ImageConfig config, LeaseMoves moves) {
        this(config, moves, TransitionTable.EMPTY);
    }

    public CatalogImage withPrior(TransitionTable other) {
        return new CatalogImage(config, moves, other);
    }

    /**
     * The table sites use: the configured hint learned from the moves ({@link TransitionTable#blend}),
     * with the prior's row for each site that has neither a hint row nor an observed move.
     */
    public TransitionTable.Filled transitions() {
        return config.transitions().blend(moves).withDefaultRows(prior);
    }
}
