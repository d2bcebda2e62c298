package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.spi.Plan;

import java.util.Arrays;

/** A plan over an array the search changes in place: {@code sites[vm]}, {@link Plan#UNASSIGNED} for an unplaced VM. */
public final class ArrayPlan implements Plan {
    private final int[] sites;

    public ArrayPlan(int[] sites) {
        this.sites = sites;
    }

    /** A plan of {@code vms} unplaced VMs. */
    public static ArrayPlan unassigned(int vms) {
        int[] sites = new int[vms];
        Arrays.fill(sites, UNASSIGNED);
        return new ArrayPlan(sites);
    }

    @Override
    public int size() {
        return sites.length;
    }

    @Override
    public int site(int vm) {
        return sites[vm];
    }

    public void place(int vm, int site) {
        sites[vm] = site;
    }

    /** The array itself, not a copy. */
    public int[] sites() {
        return sites;
    }

    @Override
    public String toString() {
        return Arrays.toString(sites);
    }
}
