package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.placement.PlacementProblem.PlanFilter;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.Arrays;
import java.util.Random;

/** Random placement problems around a scorer: unusable sites, unknown pairs, a capacity filter, a floor. */
final class TestingProblems {
    private TestingProblems() {}

    /** Every site usable, every pair known, no filter, no floor. */
    static PlacementProblem open(int sites, int[] current, Scorer scorer) {
        boolean[] usable = new boolean[sites];
        Arrays.fill(usable, true);
        boolean[][] known = new boolean[sites][sites];
        for (boolean[] row : known) {
            Arrays.fill(row, true);
        }
        return new PlacementProblem(sites, current, scorer, usable, known, PlanFilter.ALL, Double.NEGATIVE_INFINITY);
    }

    /**
     * A problem where, each with some chance, sites are unusable, pairs unknown (one way),
     * sites have a capacity the VMs' random sizes must fit, and a floor is set from the
     * score of a random plan (sometimes above every plan's).
     */
    static PlacementProblem random(Random random, int sites, int vms, Scorer scorer) {
        int[] current = randomPlan(random, sites, vms);
        boolean[] usable = new boolean[sites];
        boolean[][] known = new boolean[sites][sites];
        boolean restrict = random.nextInt(3) == 0;
        for (int a = 0; a < sites; a++) {
            usable[a] = !restrict || random.nextInt(6) != 0;
            for (int b = 0; b < sites; b++) {
                known[a][b] = !restrict || random.nextInt(8) != 0;
            }
        }
        PlanFilter filter = random.nextBoolean() ? PlanFilter.ALL : capacity(random, sites, vms);
        double floor = Double.NEGATIVE_INFINITY;
        if (random.nextInt(4) == 0) {
            floor = scorer.score(new ArrayPlan(randomPlan(random, sites, vms))) + random.nextInt(5) - 2;
        }
        return new PlacementProblem(sites, current, scorer, usable, known, filter, floor);
    }

    static int[] randomPlan(Random random, int sites, int vms) {
        return random.ints(vms, 0, sites).toArray();
    }

    /**
     * Each site holds VMs of total size at most its capacity; sizes 1 to 3, capacities 0 to 5.
     * Half of the filters tell the search which partial plans overfill a site already.
     */
    private static PlanFilter capacity(Random random, int sites, int vms) {
        Capacity capacity = new Capacity(random.ints(vms, 1, 4).toArray(), random.ints(sites, 0, 6).toArray());
        return random.nextBoolean() ? capacity : capacity::accepts;
    }

    private record Capacity(int[] size, int[] capacity) implements PlanFilter {
        @Override
        public boolean accepts(Plan plan) {
            return admits(plan);
        }

        @Override
        public boolean admits(Plan partial) {
            int[] used = new int[capacity.length];
            for (int vm = 0; vm < partial.size(); vm++) {
                int site = partial.site(vm);
                if (site != Plan.UNASSIGNED && (used[site] += size[vm]) > capacity[site]) {
                    return false;
                }
            }
            return true;
        }
    }
}
