package io.heliotrope.controller.catalog;

import io.heliotrope.controller.Names;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.HashSet;
import java.util.List;

import static java.util.Objects.requireNonNullElse;

/**
 * Migration probabilities between sites, row-major: {@code probabilities[i * n + j]} is
 * the chance that a VM at {@code sites[i]} moves to {@code sites[j]}. Each row sums to 1.
 */
public record TransitionTable(List<String> sites, List<Double> probabilities) {
    public static final TransitionTable EMPTY = new TransitionTable(List.of(), List.of());
    /** Keeps the table, n * n numbers, well inside one znode. */
    public static final int MAX_SITES = 64;
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
            if (Math.abs(sum - 1) > TOLERANCE) {
                throw invalid("the row of " + sites.get(row) + " sums to " + sum + ", not 1");
            }
        }
    }

    private static HeliotropeException invalid(String reason) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid transition table: " + reason);
    }
}
