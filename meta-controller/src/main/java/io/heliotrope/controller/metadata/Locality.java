package io.heliotrope.controller.metadata;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Which site holds the current version of most blocks of each region of an image, from its
 * committed metadata at {@code metaSeq}: the image is cut into regions of
 * {@code regionBytes} (whole blocks), the last possibly shorter. {@code sites} are those
 * holding the current version of at least one block, in name order.
 */
public record Locality(long metaSeq, long regionBytes, List<String> sites, List<Region> regions) {
    public static final int DEFAULT_REGIONS = 256;
    public static final int MAX_REGIONS = 4096;

    /**
     * {@code holder} is 0 when no block of the region has its current version at a site (each
     * is a zero marker or was never written), else the 1-based index in {@code sites} of the site
     * holding most of them (of two with as many, the first); {@code share} is the part of the
     * region's blocks it holds, 0 to 1.
     */
    public record Region(int holder, float share) {}

    public Locality {
        sites = List.copyOf(sites);
        regions = List.copyOf(regions);
    }

    /** The number of regions to cut an image into when {@code requested} were asked for (0: the default); else {@code INVALID_ARGUMENT}. */
    public static int regions(String image, int requested) {
        if (requested == 0) {
            return DEFAULT_REGIONS;
        }
        if (requested < 0 || requested > MAX_REGIONS) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': the locality map has 1 to "
                    + MAX_REGIONS + " regions (0 for " + DEFAULT_REGIONS + "), not " + Integer.toUnsignedString(requested));
        }
        return requested;
    }

    /**
     * The locality of an image of {@code imageBlocks} blocks of {@code blockSize} bytes, from its
     * materialized view, in {@code regions} regions (fewer when the image has fewer blocks).
     */
    public static Locality of(ImageView view, long imageBlocks, int blockSize, int regions) {
        long regionBlocks = Math.max(1, (imageBlocks + regions - 1) / regions);
        int count = Math.toIntExact((imageBlocks + regionBlocks - 1) / regionBlocks);
        BlockEntries entries = view.entries();
        int holders = entries.sites().size() + 1;
        long[] counts = new long[count * holders];
        for (int i = 0; i < entries.size() && entries.block(i) < imageBlocks; i++) {
            counts[Math.toIntExact(entries.block(i) / regionBlocks) * holders + entries.holder(i)]++;
        }
        List<String> sites = sitesHolding(entries.sites(), counts, holders);
        int[] column = sites.stream().mapToInt(site -> entries.sites().indexOf(site) + 1).toArray();
        List<Region> out = new ArrayList<>(count);
        for (int region = 0; region < count; region++) {
            long length = Math.min(regionBlocks, imageBlocks - region * regionBlocks);
            int best = 0;
            long most = 0;
            for (int site = 0; site < sites.size(); site++) {
                long held = counts[region * holders + column[site]];
                if (held > most) {
                    best = site + 1;
                    most = held;
                }
            }
            out.add(new Region(best, (float) most / length));
        }
        return new Locality(view.metaSeq(), regionBlocks * blockSize, sites, out);
    }

    private static List<String> sitesHolding(List<String> table, long[] counts, int holders) {
        TreeSet<String> held = new TreeSet<>();
        for (int i = 0; i < counts.length; i++) {
            if (i % holders != 0 && counts[i] > 0) {
                held.add(table.get(i % holders - 1));
            }
        }
        return List.copyOf(held);
    }
}
