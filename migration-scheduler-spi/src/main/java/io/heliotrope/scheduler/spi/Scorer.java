package io.heliotrope.scheduler.spi;

/**
 * Scores plans for one decision, prepared by {@link Policy#prepare}. Used by one thread at
 * a time; {@link #score} is the search's inner loop, so it should not allocate.
 */
public interface Scorer {
    /** The plan's score: finite, higher is better, the same bits every time for the same plan. */
    double score(Plan plan);

    /**
     * An upper bound on the score of every plan that completes {@code partial} (whose
     * unplaced VMs read {@link Plan#UNASSIGNED}); the search skips a partial plan whose
     * bound is below the best score found so far. It must never be below a completion's
     * score, and is only useful if cheap. The default bounds nothing.
     */
    default double bound(Plan partial) {
        return Double.POSITIVE_INFINITY;
    }

    /**
     * Interchangeable roles: for each VM a class number; VMs of one class may trade sites
     * without changing the score (an ensemble's followers), so the search tries each
     * multiset of their sites once. {@code null}, the default, makes every VM a class of its own.
     */
    default int[] roleClasses() {
        return null;
    }

    /** The plan's score term by term, for {@code helio scheduler explain}. */
    Explanation explain(Plan plan);
}
