package io.heliotrope.scheduler.placement;

import java.util.Optional;

/**
 * The generic exact search (DESIGN.md section 7): the best plan of a {@link PlacementProblem},
 * the same one its brute force finds, by branch and bound over partial plans.
 *
 * <ul>
 *   <li>Roles: the VMs of one {@linkplain io.heliotrope.scheduler.spi.Scorer#roleClasses() class}
 *       score the same whichever of them takes which site, so each multiset of a class's sites
 *       is scored once; the VMs alone in their class are placed first. For a multiset that may
 *       win, the best concrete plan (filter accepted, fewest moves, smallest site list) is
 *       found by a small search of its own.</li>
 *   <li>Bounds: a partial plan is skipped when the scorer's
 *       {@linkplain io.heliotrope.scheduler.spi.Scorer#bound bound} is below the floor or the
 *       best score found so far, or equal to it while every completion moves more VMs than the
 *       best plan does (a lower bound on moves from the current sites). Children are tried best
 *       bound first and the current plan's sites first among equals, so that when every plan
 *       ties the current plan is found first and everything else is cut.</li>
 *   <li>Eligibility (usable sites, known pairs) is checked as each VM is placed.</li>
 * </ul>
 */
public final class Search {
    private Search() {}

    /** The best plan, or empty when no eligible plan the filter accepts scores at least the floor. */
    public static Optional<Placement> best(PlacementProblem problem) {
        return new PlanTree(problem, true).best();
    }
}
