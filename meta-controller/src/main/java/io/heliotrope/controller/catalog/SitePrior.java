package io.heliotrope.controller.catalog;

import io.heliotrope.controller.lease.LeaseMoves;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The fleet's default transition row of each site (DESIGN.md section 6): where images of
 * that site moved, for a site that has no row of its own in an image's table. From X, the
 * chance of Y is {@code (1 + M(X, Y)) / sum over Z of (1 + M(X, Z))}, over the registered
 * sites Y and Z other than X, with {@code M(X, Y)} the moves from X to Y summed over every
 * image: uniform until images moved, then leaning to where they went. A site alone has no
 * row.
 */
public final class SitePrior {
    private SitePrior() {}

    /** The prior over {@code registered} sites (a table with their names in order), from the moves of every image. */
    public static TransitionTable of(Collection<String> registered, Collection<LeaseMoves> moves) {
        List<String> sites = List.copyOf(new TreeSet<>(registered));
        Map<String, Map<String, Long>> moved = new HashMap<>();
        moves.forEach(image -> image.counts().forEach((from, row) -> row.forEach((to, count) ->
                moved.computeIfAbsent(from, site -> new HashMap<>()).merge(to, count, Long::sum))));
        List<Double> probabilities = new ArrayList<>(sites.size() * sites.size());
        for (String from : sites) {
            double[] weights = new double[sites.size()];
            double total = 0;
            for (int to = 0; to < sites.size(); to++) {
                if (!sites.get(to).equals(from)) {
                    weights[to] = 1 + moved.getOrDefault(from, Map.of()).getOrDefault(sites.get(to), 0L);
                    total += weights[to];
                }
            }
            for (double weight : weights) {
                probabilities.add(total == 0 ? 0 : weight / total);
            }
        }
        return new TransitionTable(sites, probabilities);
    }
}
