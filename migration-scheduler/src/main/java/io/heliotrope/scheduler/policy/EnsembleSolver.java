package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.PlanOrder;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Scorer;

/**
 * The ensemble's closed form, O(N^3). With the leader at {@code l}, a plan costs
 * {@code F = leaderCost(l) + sum of its followers' g_l(q) + 2 m beta W med} (see {@link EnsembleScorer}).
 * Fix {@code l} and a value {@code tau} of {@code L(l, .)}: the cheapest followers whose lower
 * median is at most {@code tau} put {@code t = ceil((m-1)/2)} of them on the cheapest site of
 * {@code E = {q : L(l, q) <= tau}} (cost {@code gE}) and the others on the cheapest site of all
 * ({@code g*}); {@code H(l, tau) = leaderCost(l) + t gE + (m-1-t) g* + 2 m beta W tau} bounds those
 * plans' {@code F}, and equals it at {@code tau = med}, so {@code F* = min H}.
 *
 * <p>The best plans are exactly the plans of the pairs {@code (l, tau)} with {@code H = F*} whose
 * followers all cost {@code gE} in {@code E} or {@code g*}, with {@code t} of them at cost
 * {@code gE} in {@code E} (at least {@code t} when {@code gE = g*}). For each such pair the site
 * of each follower is chosen in VM order, the smallest site that still lets the remaining ones
 * reach the fewest moves; the pairs' answers are compared in {@link PlanOrder}.
 */
final class EnsembleSolver {
    private final EnsembleScorer scorer;
    private final int[] current;
    private int[] best;
    private int bestMoves;

    private EnsembleSolver(EnsembleScorer scorer, int[] current) {
        this.scorer = scorer;
        this.current = current;
    }

    static int[] solve(Scorer scorer, Plan current) {
        if (!(scorer instanceof EnsembleScorer ensemble)) {
            throw new IllegalArgumentException(EnsemblePolicy.NAME + " solves only the scorers it prepared");
        }
        if (current.size() != ensemble.vms) {
            throw new IllegalArgumentException("the current plan places " + current.size() + " VMs, not " + ensemble.vms);
        }
        int[] sites = new int[ensemble.vms];
        for (int vm = 0; vm < sites.length; vm++) {
            sites[vm] = current.site(vm);
        }
        return new EnsembleSolver(ensemble, sites).solve();
    }

    private int[] solve() {
        double least = Double.POSITIVE_INFINITY;
        for (int l = 0; l < scorer.sites; l++) {
            for (int k = 0; k < scorer.sites; k++) {
                if (lastOfItsValue(l, k)) {
                    least = Math.min(least, cost(l, k));
                }
            }
        }
        for (int l = 0; l < scorer.sites; l++) {
            for (int k = 0; k < scorer.sites; k++) {
                if (lastOfItsValue(l, k) && cost(l, k) == least) {
                    consider(l, k);
                }
            }
        }
        return best;
    }

    /** {@code H(l, tau)} for {@code tau} the {@code k}-th nearest round trip from {@code l}. */
    private double cost(int l, int k) {
        int row = l * scorer.sites;
        return scorer.leaderCost[l]
                + scorer.rank * scorer.nearCost[row + k]
                + (scorer.followers - scorer.rank) * scorer.cheapestFollower[l]
                + scorer.medianWeight * scorer.nearRtt[row + k];
    }

    /** Whether {@code E} for this {@code k} is all of {@code E(tau)}: the last {@code k} of equal round trips. */
    private boolean lastOfItsValue(int l, int k) {
        int row = l * scorer.sites;
        return k == scorer.sites - 1 || scorer.nearRtt[row + k + 1] != scorer.nearRtt[row + k];
    }

    /** The plan first in {@link PlanOrder} among the best plans of {@code (l, tau)}. */
    private void consider(int l, int k) {
        int row = l * scorer.sites;
        long tau = scorer.nearRtt[row + k];
        double inE = scorer.nearCost[row + k];
        double anywhere = scorer.cheapestFollower[l];
        boolean[] special = new boolean[scorer.sites];
        boolean[] plain = new boolean[scorer.sites];
        for (int q = 0; q < scorer.sites; q++) {
            special[q] = scorer.fromLeader(l, q) <= tau && scorer.followerCost[row + q] == inE;
            plain[q] = !special[q] && scorer.followerCost[row + q] == anywhere;
        }
        Followers followers = new Followers(special, plain, scorer.rank, inE == anywhere ? scorer.followers : scorer.rank);
        int[] plan = new int[scorer.vms];
        plan[scorer.leader] = l;
        int moves = plan[scorer.leader] == current[scorer.leader] ? 0 : 1;
        int target = moves + scorer.followers - followers.mostStaying(0, 0);
        int inSpecial = 0;
        for (int f = 0; f < scorer.followers; f++) {
            int vm = scorer.followerVms[f];
            for (int q = 0; q < scorer.sites; q++) {
                if (!special[q] && !plain[q]) {
                    continue;
                }
                int count = inSpecial + (special[q] ? 1 : 0);
                int moved = moves + (q == current[vm] ? 0 : 1);
                int staying = followers.mostStaying(f + 1, count);
                if (staying >= 0 && moved + (scorer.followers - f - 1 - staying) == target) {
                    plan[vm] = q;
                    inSpecial = count;
                    moves = moved;
                    break;
                }
            }
        }
        if (best == null || PlanOrder.compare(0, moves, plan, 0, bestMoves, best) < 0) {
            best = plan;
            bestMoves = moves;
        }
    }

    /**
     * The followers of one pair: each on a {@code special} site ({@code gE} in {@code E}) or a
     * {@code plain} one ({@code g*}, not special), between {@code least} and {@code most} of them special.
     */
    private final class Followers {
        private final int least;
        private final int most;
        private final boolean anyPlain;
        /** {@code [f]}: how many of the followers from the {@code f}-th on are now on a special site; a plain one. */
        private final int[] onSpecial;
        private final int[] onPlain;

        Followers(boolean[] special, boolean[] plain, int least, int most) {
            this.least = least;
            this.most = most;
            int count = scorer.followers;
            onSpecial = new int[count + 1];
            onPlain = new int[count + 1];
            for (int f = count - 1; f >= 0; f--) {
                int site = current[scorer.followerVms[f]];
                onSpecial[f] = onSpecial[f + 1] + (isIn(special, site) ? 1 : 0);
                onPlain[f] = onPlain[f + 1] + (isIn(plain, site) ? 1 : 0);
            }
            boolean any = false;
            for (boolean p : plain) {
                any |= p;
            }
            anyPlain = any;
        }

        /**
         * The most followers from the {@code f}-th on that can stay where they are, when
         * {@code special} of the earlier ones are on special sites; -1 when no placement of
         * them meets the counts.
         */
        int mostStaying(int f, int special) {
            int rest = scorer.followers - f;
            int fewest = least - special;
            int room = most - special;
            if (room < 0 || fewest > rest || (!anyPlain && rest > room)) {
                return -1;
            }
            if (!anyPlain) {
                return onSpecial[f];
            }
            return Math.min(onSpecial[f], room) + Math.min(onPlain[f], rest - Math.max(0, fewest));
        }

        private boolean isIn(boolean[] set, int site) {
            return site >= 0 && site < set.length && set[site];
        }
    }
}
