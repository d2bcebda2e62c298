package io.heliotrope.scheduler.decision;

import java.time.Duration;
import java.time.Instant;

/** Durations as decisions print them: {@code 10m}, {@code 1m30s}, {@code 45s}, {@code 200ms}. */
final class Durations {
    private Durations() {}

    static String print(Duration duration) {
        if (duration.toMillis() < 1_000) {
            return duration.toMillis() + "ms";
        }
        long seconds = duration.toSeconds();
        StringBuilder text = new StringBuilder();
        if (seconds >= 3_600) {
            text.append(seconds / 3_600).append('h');
        }
        if (seconds % 3_600 >= 60) {
            text.append(seconds % 3_600 / 60).append('m');
        }
        if (seconds % 60 != 0 || text.isEmpty()) {
            text.append(seconds % 60).append('s');
        }
        return text.toString();
    }

    static String ago(Instant then, Instant now) {
        return print(Duration.between(then, now).isNegative() ? Duration.ZERO : Duration.between(then, now));
    }
}
