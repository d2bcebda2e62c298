package io.heliotrope.cli.print;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sizes as people write them: {@code 4096}, {@code 256M}, {@code 1G}, {@code 2TiB} (powers of 1024). */
public final class Sizes implements ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([KMGTP]?)(I?B)?");

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    public static long parse(String value) {
        Matcher matcher = SIZE.matcher(value.trim().toUpperCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new TypeConversionException("invalid size '" + value + "': use a number with an optional K, M, G, T or P suffix");
        }
        int shift = 10 * "KMGTP".indexOf(matcher.group(2)) + (matcher.group(2).isEmpty() ? 0 : 10);
        try {
            long number = Long.parseLong(matcher.group(1));
            if (shift > 0 && number > Long.MAX_VALUE >> shift) {
                throw new NumberFormatException();
            }
            return number << shift;
        } catch (NumberFormatException e) {
            throw new TypeConversionException("size '" + value + "' is too large");
        }
    }

    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
