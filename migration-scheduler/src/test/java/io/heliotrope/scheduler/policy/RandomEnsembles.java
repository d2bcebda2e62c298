package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.PlacementProblem;
import io.heliotrope.scheduler.placement.PlacementProblem.PlanFilter;
import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Random ensemble instances of at most 6 sites and 4 VMs, with integer rates, weights and
 * round trips; half of them drawn from {0, 1, 2} so that ties are everywhere, some without load.
 */
final class RandomEnsembles {
    private RandomEnsembles() {}

    record Instance(TestingRttMatrix rtt, Application application, EnsembleWorkload workload, int[] current) {
        Scorer scorer() {
            return new EnsemblePolicy().prepare(application, workload, rtt);
        }

        @Override
        public String toString() {
            return rtt + " " + application + " " + workload + " current " + Arrays.toString(current);
        }

        PlacementProblem problem() {
            return RandomEnsembles.problem(rtt.count(), current, scorer());
        }
    }

    /** The problem a solver answers: every site and plan allowed, no floor. */
    static PlacementProblem problem(int sites, int[] current, Scorer scorer) {
        boolean[] usable = new boolean[sites];
        boolean[][] known = new boolean[sites][sites];
        Arrays.fill(usable, true);
        for (boolean[] row : known) {
            Arrays.fill(row, true);
        }
        return new PlacementProblem(sites, current, scorer, usable, known, PlanFilter.ALL, Double.NEGATIVE_INFINITY);
    }

    static Instance draw(Random random) {
        int sites = 1 + random.nextInt(6);
        int vms = 1 + random.nextInt(4);
        int rttRange = random.nextBoolean() ? 3 : 100;
        int rateRange = random.nextBoolean() ? 3 : 20;
        long[][] micros = new long[sites][sites];
        for (long[] row : micros) {
            for (int to = 0; to < sites; to++) {
                row[to] = random.nextInt(rttRange);
            }
        }
        List<Integer> frontEndSites = new ArrayList<>(IntStream.range(0, sites).boxed().toList());
        Collections.shuffle(frontEndSites, random);
        int frontEnds = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(Math.min(3, sites));
        List<FrontEnd> load = new ArrayList<>();
        for (int i = 0; i < frontEnds; i++) {
            load.add(new FrontEnd("s" + frontEndSites.get(i), random.nextInt(rateRange), random.nextInt(rateRange)));
        }
        Map<String, String> parameters = new HashMap<>();
        if (random.nextBoolean()) {
            parameters.put("alpha", Integer.toString(random.nextInt(3)));
            parameters.put("beta", Integer.toString(random.nextInt(3)));
        }
        int[] current = random.ints(vms, 0, sites).toArray();
        TestingRttMatrix rtt = TestingRttMatrix.of(micros);
        return new Instance(rtt, application(vms, random.nextInt(vms), parameters), new EnsembleWorkload(null, load), current);
    }

    /** VMs {@code vm0, vm1, ...}. */
    static Application application(int vms, int leader, Map<String, String> parameters) {
        return new Application("app", IntStream.range(0, vms).mapToObj(vm -> "vm" + vm).toList(), leader, parameters);
    }
}
