package io.heliotrope.benchmarks.placement;

import io.heliotrope.scheduler.placement.PlacementProblem;
import io.heliotrope.scheduler.placement.PlacementProblem.PlanFilter;
import io.heliotrope.scheduler.policy.EnsemblePolicy;
import io.heliotrope.scheduler.policy.EnsembleWorkload;
import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * A seeded random decision for the ensemble policy: {@code vms} VMs (the first leads) on a
 * {@link GeoMatrix} of {@code sites} sites, 8 front ends at distinct random sites with integer
 * rates (0-1,000 reads, 0-200 writes per second), the VMs now at random sites.
 */
record EnsembleInstance(Scorer scorer, PlacementProblem problem) {
    static final int FRONT_ENDS = 8;

    static EnsembleInstance of(int sites, int vms, long seed) {
        Random random = new Random(seed);
        GeoMatrix rtt = new GeoMatrix(sites, random);
        List<Integer> shuffled = new ArrayList<>(IntStream.range(0, sites).boxed().toList());
        Collections.shuffle(shuffled, random);
        List<FrontEnd> frontEnds = shuffled.stream().limit(Math.min(FRONT_ENDS, sites))
                .map(site -> new FrontEnd(rtt.name(site), random.nextInt(1_001), random.nextInt(201)))
                .toList();
        List<String> names = IntStream.range(0, vms).mapToObj(vm -> "vm" + vm).toList();
        Application application = new Application("bench", names, 0, Map.of());
        Scorer scorer = new EnsemblePolicy().prepare(application, new EnsembleWorkload(names.get(0), frontEnds), rtt);
        boolean[] usable = new boolean[sites];
        Arrays.fill(usable, true);
        boolean[][] known = new boolean[sites][sites];
        for (boolean[] row : known) {
            Arrays.fill(row, true);
        }
        int[] current = random.ints(vms, 0, sites).toArray();
        return new EnsembleInstance(scorer, new PlacementProblem(sites, current, scorer, usable, known, PlanFilter.ALL, Double.NEGATIVE_INFINITY));
    }
}
