package io.heliotrope.scheduler.spi;

/**
 * An exact, policy-specific way to the best plan (the ensemble policy's closed form), when
 * enumerating is the slow way. It sees every site and every plan: no capacity, filter or
 * unknown entry applies (the scheduler uses the generic search when one does).
 */
public interface Solver {
    /**
     * The best plan for {@code scorer} (prepared by the same policy): the highest score;
     * among plans with that score, the fewest VMs placed elsewhere than in {@code current};
     * among those, the smallest list of site numbers in VM order. Not any best plan: that one.
     *
     * @return the plan's sites, in VM order
     */
    int[] solve(Scorer scorer, Plan current);
}
