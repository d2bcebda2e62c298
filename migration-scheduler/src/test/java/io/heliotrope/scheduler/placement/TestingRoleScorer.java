package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.Arrays;
import java.util.List;

/**
 * A scorer shaped like the ensemble policy's, with roles and a bound: the cost of a plan is
 * each VM's cost at its site (per class), a cost per pair of VMs' sites, and, when there is a
 * leader, {@code weight} times the {@code rank}-th smallest pair cost from the leader's site
 * to a follower's. The score is minus the cost; costs are integers, so scores tie exactly.
 */
final class TestingRoleScorer implements Scorer {
    private final int[] roleClasses;
    private final int[] classIndex;
    private final long[][] siteCost;
    private final long[][] pairCost;
    private final int leader;
    private final long weight;
    private final int rank;
    private final long cheapestPair;
    private final long[] cheapestSite;
    private final long[] cheapestFrom;
    private final long[] followerCosts;

    /**
     * @param roleClasses per VM its class number, as {@link #roleClasses()} returns it
     * @param classIndex  per VM the row of {@code siteCost} its class uses
     * @param leader      the leader VM (alone in its class), or -1
     */
    TestingRoleScorer(int[] roleClasses, int[] classIndex, long[][] siteCost, long[][] pairCost, int leader, long weight, int rank) {
        this.roleClasses = roleClasses;
        this.classIndex = classIndex;
        this.siteCost = siteCost;
        this.pairCost = pairCost;
        this.leader = leader;
        this.weight = weight;
        this.rank = rank;
        this.cheapestPair = Arrays.stream(pairCost).flatMapToLong(Arrays::stream).min().orElse(0);
        this.cheapestSite = Arrays.stream(siteCost).mapToLong(row -> Arrays.stream(row).min().orElse(0)).toArray();
        this.cheapestFrom = Arrays.stream(pairCost).mapToLong(row -> Arrays.stream(row).min().orElse(0)).toArray();
        this.followerCosts = new long[classIndex.length];
    }

    @Override
    public double score(Plan plan) {
        return -cost(plan, false);
    }

    /** Minus the least cost of any completion: placed terms exactly, each unplaced one at its cheapest. */
    @Override
    public double bound(Plan partial) {
        return -cost(partial, true);
    }

    private long cost(Plan plan, boolean partial) {
        long cost = 0;
        for (int vm = 0; vm < plan.size(); vm++) {
            int site = plan.site(vm);
            cost += site == Plan.UNASSIGNED ? cheapestSite[classIndex[vm]] : siteCost[classIndex[vm]][site];
            for (int other = vm + 1; other < plan.size(); other++) {
                int otherSite = plan.site(other);
                cost += site == Plan.UNASSIGNED || otherSite == Plan.UNASSIGNED ? cheapestPair : pairCost[site][otherSite];
            }
        }
        if (leader < 0 || plan.size() < 2) {
            return cost;
        }
        int at = plan.site(leader);
        if (at == Plan.UNASSIGNED) {
            return cost + weight * cheapestPair;
        }
        int followers = 0;
        for (int vm = 0; vm < plan.size(); vm++) {
            if (vm != leader) {
                int site = plan.site(vm);
                followerCosts[followers++] = site == Plan.UNASSIGNED ? cheapestFrom[at] : pairCost[at][site];
            }
        }
        Arrays.sort(followerCosts, 0, followers);
        return cost + weight * followerCosts[Math.min(rank, followers - 1)];
    }

    @Override
    public int[] roleClasses() {
        return roleClasses;
    }

    @Override
    public Explanation explain(Plan plan) {
        return new Explanation(score(plan), List.of());
    }
}
