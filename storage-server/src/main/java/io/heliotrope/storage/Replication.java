package io.heliotrope.storage;

import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * How an image is replicated between sites (DESIGN.md section 6), as the controller's
 * catalog gives it to the site that opens the image. The site reads it at open: a change
 * applies from the image's next open.
 *
 * @param mode how blocks reach other sites
 * @param k the propagation priority's weight of the read/write ratio ({@code p = K * fr/fw + fr})
 * @param s the read/write ratio below which a block is not pushed
 * @param home the site that stores every block of a {@link Mode#REMOTE} image
 * @param syncCopies how many other sites hold a {@link Mode#SYNC} write before it is acknowledged
 * @param syncMin the fewest copies, this site's included, that a {@link Mode#SYNC} write needs to be
 *        acknowledged when fewer than {@code syncCopies} other sites can take one (the image then
 *        runs degraded); 0 for the strict default, {@code syncCopies + 1} ({@link #syncMinCopies()})
 * @param bandwidthBytesPerSecond the most pushes may send in any 1 s window; 0 for no cap
 * @param budgetBytesPerDay the most pushes may send in a day; 0 for no budget
 * @param transitions for each site, the chance that the image's VM moves from it to each
 *        site (a row sums to 1); a site without a row has no proactive pushes
 * @param pull whether a site that opens the image for write pulls the blocks it lacks in the
 *        background (DESIGN.md section 4); {@link #defaultPull} unless set
 */
public record Replication(
        Mode mode,
        double k,
        double s,
        String home,
        int syncCopies,
        int syncMin,
        long bandwidthBytesPerSecond,
        long budgetBytesPerDay,
        Map<String, Map<String, Double>> transitions,
        boolean pull) {
    public static final double DEFAULT_K = 1000;
    public static final double DEFAULT_S = 1;
    public static final int DEFAULT_SYNC_COPIES = 1;

    /** An image of a site without a controller: there is nowhere to replicate to. */
    public static final Replication LOCAL = new Replication(Mode.ON_DEMAND, DEFAULT_K, DEFAULT_S, "", 0, 0, 0, 0, Map.of(), false);

    /**
     * What an image has when nothing was chosen: proactive and pulled. With no table here; the
     * controller gives a site with no row of its own the fleet's default row (DESIGN.md section 6).
     */
    public static Replication defaults(String home) {
        return new Replication(Mode.PROACTIVE, DEFAULT_K, DEFAULT_S, home, DEFAULT_SYNC_COPIES, 0, 0, 0, Map.of(), defaultPull(Mode.PROACTIVE));
    }

    /**
     * Whether a new holder of an image of this mode pulls what it lacks when nothing was set:
     * yes for proactive (it promises cheap moves) and sync (a new holder after a failover lacks
     * little), no for on-demand (a block moves when it is read elsewhere) and remote (no copies).
     */
    public static boolean defaultPull(Mode mode) {
        return mode == Mode.PROACTIVE || mode == Mode.SYNC;
    }

    public Replication {
        requireNonNull(mode, "mode is null");
        requireNonNull(home, "home is null");
        if (!(k >= 0) || !(s >= 0) || syncCopies < 0 || syncMin < 0 || bandwidthBytesPerSecond < 0 || budgetBytesPerDay < 0) {
            throw new IllegalArgumentException("k, s, syncCopies, syncMin, bandwidth and budget must not be negative");
        }
        TreeMap<String, Map<String, Double>> rows = new TreeMap<>();
        requireNonNull(transitions, "transitions is null").forEach((from, row) -> rows.put(from, Map.copyOf(new TreeMap<>(row))));
        transitions = Map.copyOf(rows);
    }

    /** These settings with another mode. */
    public Replication withMode(Mode other) {
        return new Replication(other, k, s, home, syncCopies, syncMin, bandwidthBytesPerSecond, budgetBytesPerDay, transitions, pull);
    }

    /** These settings with the background pull on or off. */
    public Replication withPull(boolean on) {
        return new Replication(mode, k, s, home, syncCopies, syncMin, bandwidthBytesPerSecond, budgetBytesPerDay, transitions, on);
    }

    /** The fewest copies, this site's included, a sync write is acknowledged with: {@code syncMin}, or all of them when it is 0. */
    public int syncMinCopies() {
        return syncMin == 0 ? syncCopies + 1 : Math.min(syncMin, syncCopies + 1);
    }

    /** The row of {@code site}: where the image's VM goes next from there; empty when the table has no row for it. */
    public Map<String, Double> row(String site) {
        return transitions.getOrDefault(site, Map.of());
    }

    public enum Mode {
        /** Blocks are pushed ahead of migrations by priority, in the background. */
        PROACTIVE,
        /** No pushes: a block moves when it is read elsewhere. */
        ON_DEMAND,
        /** A write is acknowledged once {@code syncCopies} other sites hold it. */
        SYNC,
        /** No copies away from home: every read and write goes to the home site. */
        REMOTE
    }
}
