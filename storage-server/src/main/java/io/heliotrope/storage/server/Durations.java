package io.heliotrope.storage.server;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them: {@code 500us}, {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d+)\\s*(us|ms|s|m|h)");

    private Durations() {}

    public static Duration parse(String text) {
        Matcher matcher = FORMAT.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new IllegalArgumentException("invalid duration '" + text + "': use a number with us, ms, s, m or h, like 5s");
        }
        try {
            long amount = Long.parseLong(matcher.group(1));
            return switch (matcher.group(2)) {
                case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("invalid duration '" + text + "': too long");
        }
    }
}
