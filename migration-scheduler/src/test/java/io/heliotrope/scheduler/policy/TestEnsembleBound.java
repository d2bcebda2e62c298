package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.ArrayPlan;
import io.heliotrope.scheduler.policy.RandomEnsembles.Instance;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TestEnsembleBound {
    @Test
    void boundIsTheBestCompletionsScore() {
        Random random = new Random(31);
        for (int i = 0; i < 2_000; i++) {
            Instance instance = RandomEnsembles.draw(random);
            Scorer scorer = instance.scorer();
            ArrayPlan partial = partial(random, instance);
            double best = bestCompletion(scorer, partial, instance.rtt().count(), 0);
            double bound = scorer.bound(partial);
            String what = "instance " + i + ": " + instance + " partial " + partial;
            assertThat(bound).as(what).isGreaterThanOrEqualTo(best);
            assertThat(bound).as(what).isLessThanOrEqualTo(best + 1e-9 * Math.abs(best));
        }
    }

    @Test
    void boundStaysAboveEveryCompletionWhenEntriesAreUnknown() {
        Random random = new Random(37);
        for (int i = 0; i < 2_000; i++) {
            Instance drawn = RandomEnsembles.draw(random);
            long[][] micros = new long[drawn.rtt().count()][drawn.rtt().count()];
            for (int from = 0; from < micros.length; from++) {
                for (int to = 0; to < micros.length; to++) {
                    micros[from][to] = random.nextInt(4) == 0 ? RttMatrix.UNKNOWN : drawn.rtt().micros(from, to);
                }
            }
            Instance instance = new Instance(TestingRttMatrix.of(micros), drawn.application(), drawn.workload(), drawn.current());
            ArrayPlan partial = partial(random, instance);
            double best = bestCompletion(instance.scorer(), partial, micros.length, 0);
            assertThat(instance.scorer().bound(partial)).as("instance " + i + ": " + instance + " partial " + partial)
                    .isGreaterThanOrEqualTo(best);
        }
    }

    /** Each VM placed at random or left open, half the time each. */
    private static ArrayPlan partial(Random random, Instance instance) {
        int[] sites = random.ints(instance.current().length, 0, instance.rtt().count()).toArray();
        for (int vm = 0; vm < sites.length; vm++) {
            if (random.nextBoolean()) {
                sites[vm] = Plan.UNASSIGNED;
            }
        }
        return new ArrayPlan(sites);
    }

    /** The best score of the plans that complete {@code partial}, its VMs from {@code vm} on, by enumeration. */
    private static double bestCompletion(Scorer scorer, ArrayPlan partial, int sites, int vm) {
        if (vm == partial.size()) {
            return scorer.score(partial);
        }
        if (partial.site(vm) != Plan.UNASSIGNED) {
            return bestCompletion(scorer, partial, sites, vm + 1);
        }
        double best = Double.NEGATIVE_INFINITY;
        for (int site = 0; site < sites; site++) {
            partial.place(vm, site);
            best = Math.max(best, bestCompletion(scorer, partial, sites, vm + 1));
        }
        partial.place(vm, Plan.UNASSIGNED);
        return best;
    }
}
