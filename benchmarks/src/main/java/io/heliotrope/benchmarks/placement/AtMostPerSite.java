package io.heliotrope.benchmarks.placement;

import io.heliotrope.scheduler.placement.PlacementProblem.PlanFilter;
import io.heliotrope.scheduler.spi.Plan;

import java.util.Arrays;

/** A capacity: at most {@code limit} of the application's VMs per site. One thread at a time. */
final class AtMostPerSite implements PlanFilter {
    private final int limit;
    private final int[] placed;

    AtMostPerSite(int sites, int limit) {
        this.limit = limit;
        this.placed = new int[sites];
    }

    @Override
    public boolean accepts(Plan plan) {
        return admits(plan);
    }

    @Override
    public boolean admits(Plan partial) {
        Arrays.fill(placed, 0);
        for (int vm = 0; vm < partial.size(); vm++) {
            int site = partial.site(vm);
            if (site != Plan.UNASSIGNED && ++placed[site] > limit) {
                return false;
            }
        }
        return true;
    }
}
