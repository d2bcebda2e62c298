package io.heliotrope.scheduler.placement;

/**
 * A search's answer: the best plan's sites in VM order, its score, how many VMs it moves
 * from the current plan, and how many plans were scored to find it.
 */
public record Placement(int[] sites, double score, int moves, long plansScored) {
    public Placement {
        sites = sites.clone();
    }

    @Override
    public int[] sites() {
        return sites.clone();
    }
}
