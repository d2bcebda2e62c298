package io.heliotrope.it;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A range of an image as a client's map shows it. Parsed from {@code nbdinfo --map} and
 * {@code qemu-img map --output=json}, with neighbours of the same kind merged, so tests
 * compare content and not how finely a server splits it.
 */
record Extent(long offset, long length, Kind kind) {
    /** {@code HOLE}: unallocated but not promised to read as zeros. */
    enum Kind { DATA, ZERO, HOLE }

    private static final Pattern NBDINFO_LINE = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+\\S+", Pattern.MULTILINE);
    private static final Pattern QEMU_IMG_ENTRY = Pattern.compile(
            "\"start\": (\\d+), \"length\": (\\d+), .*?\"zero\": (true|false), \"data\": (true|false)");
    private static final int NBD_STATE_HOLE = 1;
    private static final int NBD_STATE_ZERO = 2;

    static Extent data(long offset, long length) {
        return new Extent(offset, length, Kind.DATA);
    }

    static Extent zero(long offset, long length) {
        return new Extent(offset, length, Kind.ZERO);
    }

    /** {@code nbdinfo --map} lines: offset, length, base:allocation type, description. */
    static List<Extent> fromNbdinfoMap(String output) {
        List<Extent> extents = new ArrayList<>();
        Matcher line = NBDINFO_LINE.matcher(output);
        while (line.find()) {
            int type = Integer.parseInt(line.group(3));
            Kind kind = (type & NBD_STATE_ZERO) != 0 ? Kind.ZERO : (type & NBD_STATE_HOLE) != 0 ? Kind.HOLE : Kind.DATA;
            extents.add(new Extent(Long.parseLong(line.group(1)), Long.parseLong(line.group(2)), kind));
        }
        return merged(extents);
    }

    static List<Extent> fromQemuImgMap(String json) {
        List<Extent> extents = new ArrayList<>();
        Matcher entry = QEMU_IMG_ENTRY.matcher(json);
        while (entry.find()) {
            Kind kind = Boolean.parseBoolean(entry.group(4)) ? Kind.DATA : Boolean.parseBoolean(entry.group(3)) ? Kind.ZERO : Kind.HOLE;
            extents.add(new Extent(Long.parseLong(entry.group(1)), Long.parseLong(entry.group(2)), kind));
        }
        return merged(extents);
    }

    private static List<Extent> merged(List<Extent> extents) {
        List<Extent> merged = new ArrayList<>();
        for (Extent extent : extents) {
            Extent last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && last.kind == extent.kind && last.offset + last.length == extent.offset) {
                merged.set(merged.size() - 1, new Extent(last.offset, last.length + extent.length, last.kind));
            } else {
                merged.add(extent);
            }
        }
        return merged;
    }
}
