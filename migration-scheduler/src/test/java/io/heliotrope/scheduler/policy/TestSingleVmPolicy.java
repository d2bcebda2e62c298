package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.ArrayPlan;
import io.heliotrope.scheduler.policy.SingleVmWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Explanation.Term;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Solver;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSingleVmPolicy {
    private static final SingleVmPolicy POLICY = new SingleVmPolicy();
    private static final Application ONE_VM = RandomEnsembles.application(1, -1, Map.of());
    // L(from, to); the diagonal is each site's intra-site round trip; L(c, a) != L(a, c)
    private static final TestingRttMatrix RTT = new TestingRttMatrix(List.of("a", "b", "c"), new long[][] {
            {1_000, 20_000, 50_000},
            {20_000, 1_000, 30_000},
            {40_000, 30_000, 2_000}});
    private static final SingleVmWorkload LOAD = new SingleVmWorkload(List.of(
            new FrontEnd("a", 10), new FrontEnd("c", 5), new FrontEnd("b", 0.5)));

    @Test
    void scoresEachSiteByTheRateWeightedRoundTripsFromTheFrontEnds() {
        Scorer scorer = POLICY.prepare(ONE_VM, LOAD, RTT);
        // f(a) = -(10 L(a,a) + 5 L(c,a) + 0.5 L(b,a)) = -(10 * 1000 + 5 * 40000 + 0.5 * 20000) = -220000
        assertThat(scorer.score(plan(0))).isEqualTo(-220_000.0);
        // f(b) = -(10 * 20000 + 5 * 30000 + 0.5 * 1000) = -350500
        assertThat(scorer.score(plan(1))).isEqualTo(-350_500.0);
        // f(c) = -(10 * 50000 + 5 * 2000 + 0.5 * 30000): c's own 2 ms counts for its front end
        assertThat(scorer.score(plan(2))).isEqualTo(-525_000.0);
        assertThat(scorer.bound(ArrayPlan.unassigned(1))).isEqualTo(-220_000.0);
        assertThat(scorer.bound(plan(1))).isEqualTo(-350_500.0);
    }

    @Test
    void explainsEachFrontEndsShare() {
        assertThat(POLICY.prepare(ONE_VM, LOAD, RTT).explain(plan(0)).terms()).containsExactly(
                new Term("L[a]", 1_000, -10_000),
                new Term("L[c]", 40_000, -200_000),
                new Term("L[b]", 20_000, -10_000));
    }

    @Test
    void solverTakesTheBestSiteAndOnTiesStaysPut() {
        Solver solver = POLICY.solver().orElseThrow();
        assertThat(solver.solve(POLICY.prepare(ONE_VM, LOAD, RTT), plan(2))).containsExactly(0);
        Scorer idle = POLICY.prepare(ONE_VM, new SingleVmWorkload(List.of()), RTT);
        assertThat(solver.solve(idle, plan(2))).containsExactly(2);
        assertThat(solver.solve(idle, ArrayPlan.unassigned(1))).containsExactly(0);
    }

    @Test
    void refusesAnythingButOneVmAndUnknownSites() {
        assertThatThrownBy(() -> POLICY.validate(RandomEnsembles.application(2, 0, Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("single-vm places exactly one VM; app has 2");
        SingleVmWorkload elsewhere = new SingleVmWorkload(List.of(new FrontEnd("tokyo", 1)));
        assertThatThrownBy(() -> POLICY.prepare(ONE_VM, elsewhere, RTT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("front end site tokyo is not a registered site");
    }

    private static Plan plan(int site) {
        return new ArrayPlan(new int[] {site});
    }
}
