package io.heliotrope.examples.minimax;

import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Explanation.Term;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.ArrayList;
import java.util.List;

/**
 * Scores a placement of one VM by its worst front end's round trip. Every site's worst is
 * worked out once, here, so that {@link #score} is one array read.
 */
final class WorstRoundTrip implements Scorer {
    private final RttMatrix rtt;
    private final int[] frontEnds;
    /** Per site p, max over front ends of L(d_i, p); 0 when no front end sends requests. */
    private final long[] worst;

    WorstRoundTrip(RttMatrix rtt, int[] frontEnds) {
        this.rtt = rtt;
        this.frontEnds = frontEnds.clone();
        this.worst = new long[rtt.count()];
        for (int site = 0; site < worst.length; site++) {
            for (int frontEnd : frontEnds) {
                worst[site] = Math.max(worst[site], rtt.micros(frontEnd, site));
            }
        }
    }

    @Override
    public double score(Plan plan) {
        return -worst[plan.site(0)];
    }

    /** One term per front end, {@code L[site]}: only the worst one (the first, on a tie) contributes. */
    @Override
    public Explanation explain(Plan plan) {
        int site = plan.site(0);
        List<Term> terms = new ArrayList<>();
        boolean counted = false;
        for (int frontEnd : frontEnds) {
            long micros = rtt.micros(frontEnd, site);
            boolean worstOne = !counted && micros == worst[site];
            counted |= worstOne;
            terms.add(new Term("L[" + rtt.name(frontEnd) + "]", micros, worstOne ? -micros : 0));
        }
        return new Explanation(score(plan), terms);
    }
}
