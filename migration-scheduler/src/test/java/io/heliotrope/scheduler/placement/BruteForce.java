package io.heliotrope.scheduler.placement;

import java.util.Optional;

/**
 * The oracle: every one of the {@code sites^vms} plans, each checked and scored, the best
 * kept by {@link PlanOrder}. Exponential; for tests on small instances only.
 */
public final class BruteForce {
    private BruteForce() {}

    public static Optional<Placement> best(PlacementProblem problem) {
        int vms = problem.current().length;
        ArrayPlan plan = new ArrayPlan(new int[vms]);
        int[] best = null;
        double bestScore = 0;
        int bestMoves = 0;
        long scored = 0;
        long plans = (long) Math.pow(problem.sites(), vms);
        for (long index = 0; index < plans; index++) {
            long rest = index;
            for (int vm = vms - 1; vm >= 0; vm--) {
                plan.place(vm, (int) (rest % problem.sites()));
                rest /= problem.sites();
            }
            if (!eligible(problem, plan.sites()) || !problem.filter().accepts(plan)) {
                continue;
            }
            double score = problem.scorer().score(plan);
            scored++;
            if (score < problem.floor()) {
                continue;
            }
            int moves = PlanOrder.moves(plan.sites(), problem.current());
            if (best == null || PlanOrder.compare(score, moves, plan.sites(), bestScore, bestMoves, best) < 0) {
                best = plan.sites().clone();
                bestScore = score;
                bestMoves = moves;
            }
        }
        return best == null ? Optional.empty() : Optional.of(new Placement(best, bestScore, bestMoves, scored));
    }

    private static boolean eligible(PlacementProblem problem, int[] sites) {
        for (int a : sites) {
            if (!problem.usable()[a]) {
                return false;
            }
            for (int b : sites) {
                if (a != b && !problem.known()[a][b]) {
                    return false;
                }
            }
        }
        return true;
    }
}
