package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.List;

/** A scorer without roles or bound: a value per VM and site plus a value per pair of sites. */
final class TestingTableScorer implements Scorer {
    private final long[][] vmValue;
    private final long[][] pairValue;

    TestingTableScorer(long[][] vmValue, long[][] pairValue) {
        this.vmValue = vmValue;
        this.pairValue = pairValue;
    }

    @Override
    public double score(Plan plan) {
        long score = 0;
        for (int vm = 0; vm < plan.size(); vm++) {
            score += vmValue[vm][plan.site(vm)];
            for (int other = vm + 1; other < plan.size(); other++) {
                score += pairValue[plan.site(vm)][plan.site(other)];
            }
        }
        return score;
    }

    @Override
    public Explanation explain(Plan plan) {
        return new Explanation(score(plan), List.of());
    }
}
