package io.heliotrope.cli.print;

import java.util.Locale;

/** Spans of time for people: {@code 850 ms}, {@code 12.3 s}, {@code 4 min 10 s}, {@code 2 h 5 min}. */
public final class Ages {
    private Ages() {}

    public static String format(long millis) {
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long seconds = millis / 1000;
        return seconds < 3600 ? seconds / 60 + " min " + seconds % 60 + " s" : seconds / 3600 + " h " + seconds / 60 % 60 + " min";
    }
}
