package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.ArrayPlan;
import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Explanation.Term;
import io.heliotrope.scheduler.spi.Scorer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class TestEnsemblePolicy {
    private static final EnsemblePolicy POLICY = new EnsemblePolicy();
    // L(from, to). Asymmetric: L(a,b) = 10000 but L(b,a) = 12000; L(a,c) = 30000 but L(c,a) = 35000.
    private static final TestingRttMatrix RTT = new TestingRttMatrix(List.of("a", "b", "c", "d"), new long[][] {
            {1_000, 10_000, 30_000, 80_000},
            {12_000, 1_000, 20_000, 70_000},
            {35_000, 20_000, 1_000, 60_000},
            {80_000, 70_000, 60_000, 1_000}});
    private static final int A = 0;
    private static final int B = 1;
    private static final int C = 2;
    private static final int D = 3;

    @Test
    void ensembleOfThree() {
        // vm0 leads at a, vm1 at b, vm2 at c; alpha = beta = 1
        // front end a (reads 100, writes 10):
        //   R_a = W1_a = (L(a,a) + L(a,b) + L(a,c)) / 3 = (1000 + 10000 + 30000) / 3 = 41000/3
        // front end d (reads 50, writes 0): R_d = (80000 + 70000 + 60000) / 3 = 70000
        // W2 = (L(a,a) + L(b,a) + L(c,a)) / 3 = (1000 + 12000 + 35000) / 3 = 16000
        // W3 = 2 * the 1st smallest of {L(a,b), L(a,c)} = {10000, 30000} -> 2 * 10000 = 20000
        // f = -(100 * 41000/3 + 10 * (41000/3 + 16000 + 20000) + 50 * 70000 + 0)
        //   = -(4510000/3 + 3860000) = -16090000/3
        Scorer scorer = prepare(3, 0, Map.of(), new FrontEnd("a", 100, 10), new FrontEnd("d", 50, 0));
        assertThat(scorer.score(plan(A, B, C))).isEqualTo(-16_090_000.0 / 3);
        assertThat(scorer.roleClasses()).containsExactly(0, 1, 1);
    }

    @Test
    void ensembleOfFiveTakesTheLowerMedianOfTheFollowersRoundTrips() {
        // vm2 leads at c; followers vm0 at a, vm1 at b, vm3 at d, vm4 at c (beside the leader)
        // follower round trips from the leader: L(c,a), L(c,b), L(c,d), L(c,c) = 35000, 20000, 60000, 1000
        //   sorted 1000, 20000, 35000, 60000: the 2nd smallest is 20000 (the mean would be 29000,
        //   the upper median 35000), so W3 = 2 * 20000 = 40000
        // front end b (reads 10, writes 2), alpha = 2, beta = 0.5:
        //   R_b = W1_b = (L(b,a) + L(b,b) + L(b,c) + L(b,d) + L(b,c)) / 5 = (12000 + 1000 + 20000 + 70000 + 20000) / 5 = 24600
        //   W2 = (L(a,c) + L(b,c) + L(c,c) + L(d,c) + L(c,c)) / 5 = (30000 + 20000 + 1000 + 60000 + 1000) / 5 = 22400
        // f = -(2 * 24600 * 10 + 0.5 * (24600 + 22400 + 40000) * 2) = -(492000 + 87000) = -579000
        Scorer scorer = prepare(5, 2, Map.of("alpha", "2", "beta", "0.5"), new FrontEnd("b", 10, 2));
        assertThat(scorer.score(plan(A, B, C, D, C))).isEqualTo(-579_000.0);
        assertThat(scorer.roleClasses()).containsExactly(1, 1, 0, 1, 1);

        Explanation explanation = scorer.explain(plan(A, B, C, D, C));
        assertThat(explanation.score()).isEqualTo(-579_000.0);
        assertThat(explanation.terms()).containsExactly(
                new Term("R[b]", 24_600, -492_000),
                new Term("W1[b]", 24_600, -24_600),
                new Term("W2[b]", 22_400, -22_400),
                new Term("W3[b]", 40_000, -40_000));
    }

    @Test
    void forwardingUsesTheRoundTripToTheLeaderAndTheQuorumTheOneFromIt() {
        // front end a writes 1/s; two VMs on a and b, and which one leads matters:
        // vm0 leads at a: W1 = (L(a,a) + L(a,b)) / 2 = 5500, W2 = (L(a,a) + L(b,a)) / 2 = 6500,
        //   W3 = 2 L(a,b) = 20000: f = -32000
        Scorer leaderOnA = prepare(2, 0, Map.of(), new FrontEnd("a", 0, 1));
        assertThat(leaderOnA.score(plan(A, B))).isEqualTo(-32_000.0);
        // vm1 leads at a: the same plan seen from the other VM, the same score
        assertThat(prepare(2, 1, Map.of(), new FrontEnd("a", 0, 1)).score(plan(B, A))).isEqualTo(-32_000.0);
        // the roles swapped, leader on b: W1 = 5500, W2 = (L(b,b) + L(a,b)) / 2 = 5500, W3 = 2 L(b,a) = 24000: f = -35000
        assertThat(leaderOnA.score(plan(B, A))).isEqualTo(-35_000.0);
    }

    @Test
    void aLoneLeaderHasNoQuorumToWaitFor() {
        // front end d (reads 3, writes 1), one VM on a: R = W1 = L(d,a) = 80000, W2 = L(a,a) = 1000, W3 = 0
        // f = -(3 * 80000 + (80000 + 1000 + 0) * 1) = -321000
        Scorer scorer = prepare(1, 0, Map.of(), new FrontEnd("d", 3, 1));
        assertThat(scorer.score(plan(A))).isEqualTo(-321_000.0);
        assertThat(scorer.explain(plan(A)).terms()).contains(new Term("W3[d]", 0, -0.0));
    }

    @Test
    void explanationsSumToTheScore() {
        Random random = new Random(23);
        Scorer scorer = prepare(5, 1, Map.of("alpha", "1.5", "beta", "3"),
                new FrontEnd("a", 17.25, 3.5), new FrontEnd("c", 0, 9), new FrontEnd("d", 120.5, 0.25));
        for (int i = 0; i < 100; i++) {
            ArrayPlan plan = new ArrayPlan(random.ints(5, 0, 4).toArray());
            Explanation explanation = scorer.explain(plan);
            assertThat(explanation.score()).isEqualTo(scorer.score(plan));
            assertThat(explanation.terms().stream().mapToDouble(Term::contribution).sum())
                    .isCloseTo(explanation.score(), within(1e-9 * Math.abs(explanation.score())));
        }
    }

    @Test
    void followersTradingSitesScoreTheSameBits() {
        Random random = new Random(5);
        long[][] micros = new long[16][16];
        for (long[] row : micros) {
            for (int to = 0; to < 16; to++) {
                row[to] = 500 + random.nextInt(200_000);
            }
        }
        FrontEnd[] load = new FrontEnd[8];
        for (int i = 0; i < load.length; i++) {
            load[i] = new FrontEnd("s" + (2 * i), random.nextDouble() * 1000, random.nextDouble() * 100);
        }
        Scorer scorer = POLICY.prepare(RandomEnsembles.application(5, 2, Map.of("alpha", "0.3", "beta", "1.7")),
                new EnsembleWorkload(null, List.of(load)), TestingRttMatrix.of(micros));
        for (int i = 0; i < 1_000; i++) {
            int[] sites = random.ints(5, 0, 16).toArray();
            double score = scorer.score(new ArrayPlan(sites));
            int[] traded = {sites[4], sites[3], sites[2], sites[0], sites[1]};
            assertThat(Double.doubleToRawLongBits(scorer.score(new ArrayPlan(traded)))).isEqualTo(Double.doubleToRawLongBits(score));
        }
    }

    @Test
    void needsALeaderAndSaneWeights() {
        EnsembleWorkload load = new EnsembleWorkload(null, List.of(new FrontEnd("a", 1, 1)));
        assertThatThrownBy(() -> POLICY.prepare(RandomEnsembles.application(3, -1, Map.of()), load, RTT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ensemble needs a leader: give --leader or name it in the reports");
        assertThatThrownBy(() -> POLICY.validate(RandomEnsembles.application(3, 0, Map.of("alpha", "-1"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("alpha must be a finite number >= 0, not '-1'");
        assertThatThrownBy(() -> POLICY.validate(RandomEnsembles.application(3, 0, Map.of("beta", "lots"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("beta must be a finite number >= 0, not 'lots'");
        assertThatThrownBy(() -> POLICY.validate(RandomEnsembles.application(3, 0, Map.of("beta", "Infinity"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("beta must be a finite number >= 0, not 'Infinity'");
        POLICY.validate(RandomEnsembles.application(3, -1, Map.of("alpha", "0", "beta", "2.5")));
    }

    private static Scorer prepare(int vms, int leader, Map<String, String> parameters, FrontEnd... frontEnds) {
        return POLICY.prepare(RandomEnsembles.application(vms, leader, parameters), new EnsembleWorkload(null, List.of(frontEnds)), RTT);
    }

    private static ArrayPlan plan(int... sites) {
        return new ArrayPlan(sites);
    }
}
