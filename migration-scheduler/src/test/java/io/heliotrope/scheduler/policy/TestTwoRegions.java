package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.placement.BruteForce;
import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Scorer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The paper's result (3.4.2, 4.1.1): with some front end writing, an ensemble ends whole in one region. */
class TestTwoRegions {
    private static final int SITES = 6;

    @Test
    void bestEnsembleLivesInOneRegion() {
        Random random = new Random(1234);
        EnsemblePolicy policy = new EnsemblePolicy();
        for (int i = 0; i < 300; i++) {
            TestingRttMatrix rtt = TestingRttMatrix.of(twoRegions(random));
            List<FrontEnd> load = new ArrayList<>();
            for (int site = 0; site < SITES; site++) {
                if (random.nextInt(3) == 0 || site == 0) {
                    load.add(new FrontEnd("s" + site, random.nextInt(1_000), site == 0 ? 1 + random.nextInt(100) : random.nextInt(100)));
                }
            }
            int vms = 3 + random.nextInt(3);
            Scorer scorer = policy.prepare(RandomEnsembles.application(vms, random.nextInt(vms), Map.of()), new EnsembleWorkload(null, load), rtt);
            int[] best = BruteForce.best(RandomEnsembles.problem(SITES, random.ints(vms, 0, SITES).toArray(), scorer)).orElseThrow().sites();
            assertThat(Arrays.stream(best).map(site -> site / 3).distinct().count())
                    .as("%s with %s: %s", rtt, load, Arrays.toString(best))
                    .isEqualTo(1);
        }
    }

    /** Sites 0-2 in one region, 3-5 in another: 0.5-1 ms within a site, 1-5 ms within a region, 50-100 ms across. */
    private static long[][] twoRegions(Random random) {
        long[][] micros = new long[SITES][SITES];
        for (int from = 0; from < SITES; from++) {
            for (int to = 0; to < SITES; to++) {
                if (from == to) {
                    micros[from][to] = 500 + random.nextInt(500);
                } else if (from / 3 == to / 3) {
                    micros[from][to] = 1_000 + random.nextInt(4_000);
                } else {
                    micros[from][to] = 50_000 + random.nextInt(50_000);
                }
            }
        }
        return micros;
    }
}
