package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.PlanOrder;
import io.heliotrope.scheduler.policy.SingleVmWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.ArrayList;
import java.util.List;

/** {@link SingleVmPolicy}'s scorer: each site's score, computed once. */
final class SingleVmScorer implements Scorer {
    private final List<FrontEnd> frontEnds;
    /** {@code rtt[p * n + i]}: from front end {@code i} to site {@code p}. */
    private final long[] rtt;
    /** Per site: {@code sum_i s_i * L(d_i, p)}, summed in front-end order. */
    private final double[] cost;
    private final double best;

    SingleVmScorer(SingleVmWorkload workload, RttMatrix matrix) {
        frontEnds = workload.frontEnds();
        int n = frontEnds.size();
        rtt = new long[matrix.count() * n];
        cost = new double[matrix.count()];
        double least = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            int from = RoundTrips.site(matrix, frontEnds.get(i).site());
            for (int p = 0; p < matrix.count(); p++) {
                rtt[p * n + i] = RoundTrips.micros(matrix, from, p);
            }
        }
        for (int p = 0; p < cost.length; p++) {
            for (int i = 0; i < n; i++) {
                cost[p] += frontEnds.get(i).rate() * rtt[p * n + i];
            }
            least = Math.min(least, cost[p]);
        }
        best = -least;
    }

    @Override
    public double score(Plan plan) {
        return -cost[plan.site(0)];
    }

    @Override
    public double bound(Plan partial) {
        return partial.site(0) == Plan.UNASSIGNED ? best : score(partial);
    }

    @Override
    public Explanation explain(Plan plan) {
        int p = plan.site(0);
        List<Explanation.Term> terms = new ArrayList<>();
        for (int i = 0; i < frontEnds.size(); i++) {
            long micros = rtt[p * frontEnds.size() + i];
            terms.add(new Explanation.Term("L[" + frontEnds.get(i).site() + "]", micros, -(frontEnds.get(i).rate() * micros)));
        }
        return new Explanation(score(plan), terms);
    }

    /** The exact solver: every site, in {@link PlanOrder}. */
    static int[] solve(Scorer scorer, Plan current) {
        if (!(scorer instanceof SingleVmScorer single)) {
            throw new IllegalArgumentException(SingleVmPolicy.NAME + " solves only the scorers it prepared");
        }
        int[] currentSites = {current.site(0)};
        int[] best = null;
        for (int p = 0; p < single.cost.length; p++) {
            int[] plan = {p};
            if (best == null || PlanOrder.compare(-single.cost[p], PlanOrder.moves(plan, currentSites), plan,
                    -single.cost[best[0]], PlanOrder.moves(best, currentSites), best) < 0) {
                best = plan;
            }
        }
        return best;
    }
}
