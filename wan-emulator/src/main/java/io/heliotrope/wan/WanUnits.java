package io.heliotrope.wan;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Parses the quantities a WAN is described with on command lines: durations such as {@code 75ms}
 * or {@code 37.5ms}, bit rates in tc's decimal units ({@code 500kbit}, {@code 100mbit},
 * {@code 1gbit}) and sizes in binary units ({@code 64KiB}, {@code 6MiB}). Units are
 * case-insensitive; a decimal fraction is allowed and rounded to the nearest nanosecond, bit or
 * byte.
 */
public final class WanUnits {
    private static final Pattern QUANTITY = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-z]*)");

    private static final Map<String, Long> NANOS_PER_UNIT = Map.of(
            "ns", 1L, "us", 1_000L, "ms", 1_000_000L, "s", 1_000_000_000L);
    private static final Map<String, Long> BITS_PER_UNIT = Map.of(
            "bit", 1L, "kbit", 1_000L, "mbit", 1_000_000L, "gbit", 1_000_000_000L);
    private static final Map<String, Long> BYTES_PER_UNIT = Map.of(
            "", 1L, "b", 1L, "kib", 1L << 10, "mib", 1L << 20, "gib", 1L << 30);

    private WanUnits() {}

    public static Duration parseDuration(String text) {
        return Duration.ofNanos(parse(text, "duration", NANOS_PER_UNIT, "ns, us, ms or s"));
    }

    /** Bits per second; {@code 0bit} is a valid rate, which {@link LinkConfig} reads as no cap. */
    public static long parseBitRate(String text) {
        return parse(text, "bit rate", BITS_PER_UNIT, "bit, kbit, mbit or gbit");
    }

    public static int parseBytes(String text) {
        long bytes = parse(text, "size", BYTES_PER_UNIT, "B, KiB, MiB or GiB");
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("size " + text + " is larger than 2 GiB");
        }
        return (int) bytes;
    }

    private static long parse(String text, String what, Map<String, Long> units, String unitNames) {
        requireNonNull(text, what + " is null");
        Matcher matcher = QUANTITY.matcher(text.strip().toLowerCase(Locale.ROOT));
        Long perUnit = matcher.matches() ? units.get(matcher.group(2)) : null;
        if (perUnit == null) {
            throw new IllegalArgumentException(
                    "invalid " + what + " '" + text + "': expected a number followed by " + unitNames);
        }
        try {
            return new BigDecimal(matcher.group(1)).multiply(BigDecimal.valueOf(perUnit))
                    .setScale(0, RoundingMode.HALF_UP)
                    .longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is too large", e);
        }
    }
}
