package io.heliotrope.scheduler.placement;

import java.util.Optional;

/**
 * The best plan by scoring every eligible plan once per multiset of each role class's sites
 * (leader site x follower multiset for an ensemble: 32 x C(37, 6) = 74.4 million plans at
 * 32 sites and 7 VMs), without bounds: what {@link Search} is measured against, and a second
 * oracle for it.
 */
public final class Exhaustive {
    private Exhaustive() {}

    /** The same answer as {@link Search#best}; {@link Placement#plansScored()} counts every multiset. */
    public static Optional<Placement> best(PlacementProblem problem) {
        return new PlanTree(problem, false).best();
    }
}
