package io.heliotrope.storage.image;

import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code NBD_OPT_LIST} says of an image, for people ({@code nbdinfo --list} prints it):
 * its size on a standalone site; with a controller also its mode, home, the site holding its
 * write lease and where its current version is, e.g. {@code 256 MiB, proactive, home virginia,
 * open at taiwan, current at virginia (75%), taiwan (25%)}.
 */
public final class ExportDescriptions {
    private static final String[] UNITS = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};

    private ExportDescriptions() {}

    public static String of(ImageInfo image) {
        return size(image.sizeBytes());
    }

    /**
     * An image of the controller's catalog: {@code home} and {@code holder} empty when there is
     * none, {@code currentBlocks} the blocks each site holds current.
     */
    public static String of(long sizeBytes, Replication.Mode mode, String home, String holder, Map<String, Long> currentBlocks) {
        List<String> parts = new ArrayList<>();
        parts.add(size(sizeBytes));
        parts.add(mode(mode));
        if (!home.isEmpty()) {
            parts.add("home " + home);
        }
        if (!holder.isEmpty()) {
            parts.add("open at " + holder);
        }
        parts.add(current(currentBlocks));
        return String.join(", ", parts);
    }

    /** A size in the largest binary unit that leaves at least 1, with one decimal unless exact: {@code 256 MiB}, {@code 1.5 GiB}. */
    static String size(long bytes) {
        int unit = 0;
        while (unit < UNITS.length - 1 && bytes >= 1L << 10 * (unit + 1)) {
            unit++;
        }
        long whole = 1L << 10 * unit;
        return bytes % whole == 0 ? bytes / whole + " " + UNITS[unit] : String.format(Locale.ROOT, "%.1f %s", (double) bytes / whole, UNITS[unit]);
    }

    private static String mode(Replication.Mode mode) {
        return mode.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The sites holding the current version of the image's blocks, most first, with their shares when there are several. */
    private static String current(Map<String, Long> blocks) {
        long total = blocks.values().stream().mapToLong(Long::longValue).sum();
        if (total == 0) {
            return "no data written yet";
        }
        List<Map.Entry<String, Long>> sites = blocks.entrySet().stream()
                .filter(site -> site.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .toList();
        if (sites.size() == 1) {
            return "current at " + sites.get(0).getKey();
        }
        List<String> shares = new ArrayList<>();
        for (Map.Entry<String, Long> site : sites) {
            long percent = Math.round(site.getValue() * 100.0 / total);
            shares.add(site.getKey() + " (" + (percent == 0 ? "<1" : percent) + "%)");
        }
        return "current at " + String.join(", ", shares);
    }
}
