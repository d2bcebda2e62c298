package io.heliotrope.scheduler.decision;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which plans the RTT matrix can score (the rule): a plan needs every entry between
 * its sites, and between its sites and the workload's, both ways. A site missing an entry
 * to a workload site is not {@code usable}; two sites missing one between them are not
 * {@code known} together.
 */
record Eligibility(MeasuredRtt rtt, boolean[] usable, boolean[][] known, List<Integer> frontEnds, List<String> unregistered) {
    static Eligibility of(MeasuredRtt rtt, Set<String> workloadSites) {
        int n = rtt.count();
        List<Integer> frontEnds = new ArrayList<>();
        List<String> unregistered = new ArrayList<>();
        for (String site : new TreeSet<>(workloadSites)) {
            int index = rtt.indexOf(site);
            if (index < 0) {
                unregistered.add(site);
            } else {
                frontEnds.add(index);
            }
        }
        boolean[] usable = new boolean[n];
        boolean[][] known = new boolean[n][n];
        for (int site = 0; site < n; site++) {
            usable[site] = unregistered.isEmpty();
            for (int frontEnd : frontEnds) {
                usable[site] &= rtt.knownBothWays(site, frontEnd);
            }
            for (int other = 0; other < n; other++) {
                known[site][other] = rtt.knownBothWays(site, other);
            }
        }
        return new Eligibility(rtt, usable, known, List.copyOf(frontEnds), List.copyOf(unregistered));
    }

    /** Whether every plan can be scored. */
    boolean everything() {
        for (int site = 0; site < usable.length; site++) {
            if (!usable[site]) {
                return false;
            }
            for (boolean pair : known[site]) {
                if (!pair) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The first entry the plan needs that is missing or stale, and why; empty when the plan can be scored. */
    Optional<String> missing(int[] plan) {
        if (!unregistered.isEmpty()) {
            return Optional.of("the workload's front ends at " + unregistered + " are not registered sites");
        }
        List<Integer> needed = new ArrayList<>(frontEnds);
        for (int site : plan) {
            needed.add(site);
        }
        for (int site : plan) {
            for (int other : needed) {
                Optional<String> why = rtt.unknown(site, other).or(() -> rtt.unknown(other, site));
                if (why.isPresent()) {
                    return Optional.of("the current plan needs the round trip between " + rtt.name(site) + " and " + rtt.name(other) + ": "
                            + why.get());
                }
            }
        }
        return Optional.empty();
    }
}
