package io.heliotrope.scheduler.decision;

import java.util.Locale;

/** Scores as decisions print them: at most six significant digits, infinities by name. */
final class Scores {
    private Scores() {}

    static String print(double score) {
        if (Double.isInfinite(score)) {
            return score < 0 ? "-infinity (rejected by the filter)" : "infinity";
        }
        return String.format(Locale.ROOT, "%.6g", score).replaceAll("\\.?0+(e|$)", "$1");
    }
}
