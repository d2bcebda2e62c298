package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.policy.EnsemblePolicy;
import io.heliotrope.scheduler.policy.EnsembleWorkload;
import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.policy.TestingRttMatrix;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The search with the ensemble policy's scorer, its roles and its bound. */
class TestEnsembleSearch {
    @Test
    void searchFindsTheBruteForcePlan() {
        Random random = new Random(231);
        for (int instance = 0; instance < 1000; instance++) {
            int sites = 1 + random.nextInt(6);
            int vms = 1 + random.nextInt(4);
            PlacementProblem problem = TestingProblems.random(random, sites, vms, ensemble(random, sites, vms));
            TestSearch.assertSamePlan(instance, problem, BruteForce.best(problem), Search.best(problem));
        }
    }

    @Test
    void searchFindsTheExhaustivePlanAtEightSitesAndFiveVms() {
        Random random = new Random(232);
        for (int instance = 0; instance < 100; instance++) {
            PlacementProblem problem = TestingProblems.random(random, 8, 5, ensemble(random, 8, 5));
            Optional<Placement> exhaustive = Exhaustive.best(problem);
            TestSearch.assertSamePlan(instance, problem, exhaustive, Search.best(problem));
            exhaustive.ifPresent(plan -> assertThat(Search.best(problem).orElseThrow().plansScored()).isLessThanOrEqualTo(plan.plansScored()));
        }
    }

    /**
     * The ensemble policy prepared for a random leader, 1 to 8 front ends, alpha and beta from
     * 0 to 2; rates and round trips from tiny ranges (many ties) or realistic ones, some unknown.
     */
    private static Scorer ensemble(Random random, int sites, int vms) {
        boolean tiny = random.nextBoolean();
        int rates = tiny ? 3 : 1_000;
        boolean someUnknown = random.nextBoolean();
        long[][] micros = new long[sites][sites];
        for (long[] row : micros) {
            Arrays.setAll(row, to -> someUnknown && random.nextInt(10) == 0 ? RttMatrix.UNKNOWN : tiny ? random.nextInt(3) : 1_000 + random.nextInt(250_000));
        }
        TestingRttMatrix rtt = TestingRttMatrix.of(micros);
        List<FrontEnd> frontEnds = new ArrayList<>();
        IntStream.range(0, sites).filter(site -> frontEnds.size() < 8 && random.nextBoolean())
                .forEach(site -> frontEnds.add(new FrontEnd(rtt.name(site), random.nextInt(rates), random.nextInt(rates))));
        List<String> names = IntStream.range(0, vms).mapToObj(vm -> "vm" + vm).toList();
        String leader = names.get(random.nextInt(vms));
        Application application = new Application("app", names, names.indexOf(leader),
                Map.of("alpha", String.valueOf(random.nextInt(3)), "beta", String.valueOf(random.nextInt(3))));
        return new EnsemblePolicy().prepare(application, new EnsembleWorkload(leader, frontEnds), rtt);
    }
}
