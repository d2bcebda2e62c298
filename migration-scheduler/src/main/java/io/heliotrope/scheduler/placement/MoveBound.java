package io.heliotrope.scheduler.placement;

/**
 * A lower bound on the moves of every plan the search can still reach from its partial plan.
 * Within a class the search places VMs in non-decreasing site order, and any VM of the class may
 * take any of its sites: the class moves at least its size minus the most of its VMs' current
 * sites that its placed sites, and the sites its unplaced VMs may still take (from the last
 * placed one up), can cover.
 */
final class MoveBound {
    private final int[] classSize;
    /** Per class and site: how many of its VMs run there now; and the same summed over that site and above. */
    private final int[][] current;
    private final int[][] currentFrom;
    private final int[][] placed;
    private final int[] placedCount;
    private final int[] covered;
    private final int[] last;
    private int total;

    MoveBound(int sites, int[] current, Roles roles) {
        this.classSize = roles.classSize();
        int classes = roles.classes();
        this.current = new int[classes][sites];
        this.currentFrom = new int[classes][sites + 1];
        this.placed = new int[classes][sites];
        this.placedCount = new int[classes];
        this.covered = new int[classes];
        this.last = new int[classes];
        for (int vm = 0; vm < current.length; vm++) {
            if (current[vm] >= 0 && current[vm] < sites) {
                this.current[roles.classOf()[vm]][current[vm]]++;
            }
        }
        for (int role = 0; role < classes; role++) {
            for (int site = sites - 1; site >= 0; site--) {
                currentFrom[role][site] = currentFrom[role][site + 1] + this.current[role][site];
            }
            total += bound(role);
        }
    }

    /** The bound for the plan as it is now. */
    int value() {
        return total;
    }

    /** A VM of class {@code role} placed at {@code site}, at or above the class's last placed site. */
    void place(int role, int site) {
        total -= bound(role);
        placedCount[role]++;
        if (++placed[role][site] <= current[role][site]) {
            covered[role]++;
        }
        last[role] = site;
        total += bound(role);
    }

    /** Undoes the last {@link #place} of class {@code role}; {@code previous} is the class's last placed site before it (0 when none). */
    void unplace(int role, int site, int previous) {
        total -= bound(role);
        placedCount[role]--;
        if (placed[role][site]-- <= current[role][site]) {
            covered[role]--;
        }
        last[role] = previous;
        total += bound(role);
    }

    private int bound(int role) {
        int at = last[role];
        int uncoveredAbove = currentFrom[role][at] - Math.min(placed[role][at], current[role][at]);
        return classSize[role] - covered[role] - Math.min(classSize[role] - placedCount[role], uncoveredAbove);
    }
}
