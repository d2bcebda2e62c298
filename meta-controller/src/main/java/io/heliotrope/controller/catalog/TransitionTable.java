package io.heliotrope.controller.catalog;

import io.heliotrope.controller.Names;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import io.heliotrope.controller.lease.LeaseMoves;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * Migration probabilities between sites, row-major: {@code probabilities[i * n + j]} is
 * the chance that a VM at {@code sites[i]} moves to {@code sites[j]}. Each row sums to 1,
 * or is all zeros: nothing is known of moves from that site (it has no row).
 */
public record TransitionTable(List<String> sites, List<Double> probabilities) {
    public static final TransitionTable EMPTY = new TransitionTable(List.of(), List.of());
    /** Keeps the table, n * n numbers, well inside one znode. */
    public static final int MAX_SITES = 64;
    /** In {@link #blend}, a hint row weighs as much as this many observed moves from its site. */
    public static final double HINT_WEIGHT = 10;
    private static final double TOLERANCE = 1e-6;

    public TransitionTable {
        sites = List.copyOf(requireNonNullElse(sites, List.of()));
        probabilities = List.copyOf(requireNonNullElse(probabilities, List.of()));
        int n = sites.size();
        if (n > MAX_SITES) {
            throw invalid("it names " + n + " sites, at most " + MAX_SITES + " are allowed");
        }
        sites.forEach(Names::site);
        if (new HashSet<>(sites).size() != n) {
            throw invalid("it names a site twice: " + sites);
        }
        if (probabilities.size() != n * n) {
            throw invalid("it has " + probabilities.size() + " probabilities for " + n + " sites, needs " + n * n);
        }
        for (int row = 0; row < n; row++) {
            double sum = 0;
            for (int column = 0; column < n; column++) {
                double p = probabilities.get(row * n + column);
                if (!(p >= 0 && p <= 1)) {
                    throw invalid("probability " + p + " from " + sites.get(row) + " to " + sites.get(column) + " is not between 0 and 1");
                }
                sum += p;
            }
            if (sum != 0 && Math.abs(sum - 1) > TOLERANCE) {
                throw invalid("the row of " + sites.get(row) + " sums to " + sum + ", not 1");
            }
        }
    }

    /** Where a VM at {@code site} goes next: each site with a probability above 0; empty when the table has no row for it. */
    public Map<String, Double> row(String site) {
        int n = sites.size();
        int from = sites.indexOf(site);
        Map<String, Double> row = new LinkedHashMap<>();
        for (int to = 0; from >= 0 && to < n; to++) {
            if (probabilities.get(from * n + to) > 0) {
                row.put(sites.get(to), probabilities.get(from * n + to));
            }
        }
        return row;
    }

    /**
     * This table, as a hint, learned from observed lease moves: the row of site X is
     * {@code (W * hint(X, Y) + moves(X, Y)) / (W + moves from X)} with {@code W} =
     * {@value #HINT_WEIGHT} when the hint has a row for X, else the observed shares
     * {@code moves(X, Y) / moves from X}; a site with neither has no row. The sites are
     * this table's, then those only observed, in name order.
     */
    public TransitionTable blend(LeaseMoves moves) {
        LinkedHashSet<String> union = new LinkedHashSet<>(sites);
        union.addAll(moves.sites());
        List<String> all = List.copyOf(union);
        List<Double> blended = new ArrayList<>(all.size() * all.size());
        for (String from : all) {
            Map<String, Double> hinted = row(from);
            Map<String, Long> seen = moves.from(from);
            double hintWeight = hinted.isEmpty() ? 0 : HINT_WEIGHT;
            double total = hintWeight + seen.values().stream().mapToLong(Long::longValue).sum();
            for (String to : all) {
                blended.add(total == 0 ? 0 : (hintWeight * hinted.getOrDefault(to, 0.0) + seen.getOrDefault(to, 0L)) / total);
            }
        }
        return new TransitionTable(all, blended);
    }

    /**
     * This table with the row of {@code prior} (DESIGN.md section 6) for each site that has
     * none here but one there: a row with a hint or an observed move stays as it is. The
     * sites are this table's, then the prior's others in its order.
     */
    public Filled withDefaultRows(TransitionTable prior) {
        LinkedHashSet<String> union = new LinkedHashSet<>(sites);
        union.addAll(prior.sites());
        List<String> all = List.copyOf(union);
        List<Double> filled = new ArrayList<>(all.size() * all.size());
        List<String> defaulted = new ArrayList<>();
        for (String from : all) {
            Map<String, Double> row = row(from);
            if (row.isEmpty()) {
                row = prior.row(from);
                if (!row.isEmpty()) {
                    defaulted.add(from);
                }
            }
            for (String to : all) {
                filled.add(row.getOrDefault(to, 0.0));
            }
        }
        return new Filled(new TransitionTable(all, filled), defaulted);
    }

    /** A table in use, and the sites whose row in it is the fleet's default. */
    public record Filled(TransitionTable table, List<String> defaultRows) {
        public Filled {
            requireNonNull(table, "table is null");
            defaultRows = List.copyOf(defaultRows);
        }
    }

    private static HeliotropeException invalid(String reason) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid transition table: " + reason);
    }
}
