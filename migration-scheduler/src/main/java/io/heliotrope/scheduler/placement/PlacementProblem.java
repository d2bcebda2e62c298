package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Scorer;

import static java.util.Objects.requireNonNull;

/**
 * One search for the best plan of an application (DESIGN.md section 7): every plan maps each
 * of {@code current.length} VMs to one of {@code sites} sites. A plan is <em>eligible</em> when
 * each of its sites is {@code usable}, each pair of distinct sites in it is {@code known}, and
 * {@code filter} accepts it. Among eligible plans scoring at least {@code floor}, the best is
 * the one first in {@link PlanOrder}: highest score, then fewest VMs away from {@code current},
 * then the smallest list of sites in VM order.
 *
 * @param usable per site: its round trips to the workload's sites are known
 * @param known  per pair of sites ({@code known[a][b]}): the round trips both ways are known
 * @param floor  the score a plan needs ({@code f(current) + T}); {@code -infinity} for none
 */
public record PlacementProblem(int sites, int[] current, Scorer scorer, boolean[] usable, boolean[][] known, PlanFilter filter, double floor) {
    public PlacementProblem {
        requireNonNull(current, "current is null");
        requireNonNull(scorer, "scorer is null");
        requireNonNull(usable, "usable is null");
        requireNonNull(known, "known is null");
        requireNonNull(filter, "filter is null");
        if (usable.length != sites || known.length != sites) {
            throw new IllegalArgumentException("usable and known must have one entry per site (" + sites + ")");
        }
        current = current.clone();
    }

    /** Whether a full plan meets the filter (capacity and the policy's) and the RTT rule. */
    @FunctionalInterface
    public interface PlanFilter {
        PlanFilter ALL = plan -> true;

        boolean accepts(Plan plan);

        /**
         * Whether some plan completing {@code partial} (its unplaced VMs read {@link
         * Plan#UNASSIGNED}) may be accepted: {@code false} only when none is, as when the VMs
         * placed already overfill a site. The search asks it of the VMs of a role class as it
         * tries them on the sites the class was given, so that a capacity that no assignment
         * meets is found without trying every one; the default admits everything.
         */
        default boolean admits(Plan partial) {
            return true;
        }
    }
}
