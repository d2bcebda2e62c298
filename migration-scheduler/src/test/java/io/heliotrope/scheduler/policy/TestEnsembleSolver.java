package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.ArrayPlan;
import io.heliotrope.scheduler.placement.BruteForce;
import io.heliotrope.scheduler.placement.Placement;
import io.heliotrope.scheduler.placement.PlanOrder;
import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.policy.RandomEnsembles.Instance;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Solver;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TestEnsembleSolver {
    private static final Solver SOLVER = new EnsemblePolicy().solver().orElseThrow();

    @Test
    void closedFormFindsTheBruteForcePlanOnRandomInstances() {
        Random random = new Random(2323);
        int fewestMoveCases = 0;
        for (int i = 0; i < 3_000; i++) {
            Instance instance = RandomEnsembles.draw(random);
            Placement expected = BruteForce.best(instance.problem()).orElseThrow();
            Scorer scorer = instance.scorer();
            int[] solved = SOLVER.solve(scorer, new ArrayPlan(instance.current()));
            String what = "instance " + i + ": " + instance;
            assertThat(solved).as(what).containsExactly(expected.sites());
            assertThat(scorer.score(new ArrayPlan(solved))).as(what).isEqualTo(expected.score());
            assertThat(PlanOrder.moves(solved, instance.current())).as(what).isEqualTo(expected.moves());
            if (expected.moves() > 0 && expected.moves() < instance.current().length) {
                fewestMoveCases++;
            }
        }
        assertThat(fewestMoveCases).isGreaterThan(100);
    }

    @Test
    void withoutLoadEveryPlanTiesAndNothingMoves() {
        Instance idle = new Instance(TestingRttMatrix.of(new long[][] {{5, 1}, {1, 5}}),
                RandomEnsembles.application(3, 1, Map.of()), new EnsembleWorkload(null, List.of()), new int[] {1, 0, 1});
        assertThat(SOLVER.solve(idle.scorer(), new ArrayPlan(idle.current()))).containsExactly(1, 0, 1);
    }

    @Test
    void singleVmSolverFindsTheBruteForcePlan() {
        Random random = new Random(7);
        SingleVmPolicy policy = new SingleVmPolicy();
        for (int i = 0; i < 500; i++) {
            Instance instance = RandomEnsembles.draw(random);
            List<SingleVmWorkload.FrontEnd> load = new ArrayList<>();
            for (FrontEnd frontEnd : instance.workload().frontEnds()) {
                load.add(new SingleVmWorkload.FrontEnd(frontEnd.site(), frontEnd.reads()));
            }
            Scorer scorer = policy.prepare(RandomEnsembles.application(1, -1, Map.of()), new SingleVmWorkload(load), instance.rtt());
            int[] current = {instance.current()[0]};
            Placement expected = BruteForce.best(RandomEnsembles.problem(instance.rtt().count(), current, scorer)).orElseThrow();
            assertThat(policy.solver().orElseThrow().solve(scorer, new ArrayPlan(current))).containsExactly(expected.sites());
        }
    }
}
