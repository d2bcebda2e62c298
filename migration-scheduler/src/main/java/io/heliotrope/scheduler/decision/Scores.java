package io.heliotrope.scheduler.decision;

import java.util.Locale;

/** Scores as decisions print them: at most six significant digits, infinities by name. */
final class Scores {
    private Scores() {}

    static String print(double score) {
        if (Double.isInfinite(score)) {
            return score < 0 ? "-infinity" : "infinity";
        }
        String text = String.format(Locale.ROOT, "%.6g", score);
        // Trailing zeros of the fraction only: -750000 stays, -3.06000e+06 becomes -3.06e+06.
        return text.contains(".") ? text.replaceAll("0+(e|$)", "$1").replaceAll("\\.(e|$)", "$1") : text;
    }
}
