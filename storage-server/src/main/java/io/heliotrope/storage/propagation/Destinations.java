package io.heliotrope.storage.propagation;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

import static java.util.Objects.requireNonNull;

/**
 * Where the next push goes: a site drawn from the current site's row of the image's
 * transition table, each with its row's probability (paper section 3.2.3). Drawing the
 * current site means "not now": the VM is likely to stay, so nothing goes out this time.
 * A row that is empty, or gives no other site a chance, means no proactive pushes. Rows
 * that do not sum to 1 are scaled to, so leaving a site out ({@link #without}) shares its
 * chance among the others.
 */
final class Destinations {
    private final String site;
    /** The row's sites with a chance, sorted, so a seeded generator draws the same sites on every run. */
    private final Map<String, Double> chances = new TreeMap<>();
    private final String[] sites;
    /** Cumulative probabilities, in the order of {@link #sites}: the last is the row's sum. */
    private final double[] bounds;
    private final boolean pushes;

    Destinations(String site, Map<String, Double> row) {
        this.site = requireNonNull(site, "site is null");
        requireNonNull(row, "row is null").forEach((to, chance) -> {
            if (chance > 0) {
                chances.put(to, chance);
            }
        });
        sites = chances.keySet().toArray(String[]::new);
        bounds = new double[sites.length];
        double sum = 0;
        for (int i = 0; i < sites.length; i++) {
            sum += chances.get(sites[i]);
            bounds[i] = sum;
        }
        pushes = chances.keySet().stream().anyMatch(to -> !to.equals(site));
    }

    /** These destinations but {@code gone}. */
    Destinations without(Collection<String> gone) {
        Map<String, Double> row = new TreeMap<>(chances);
        row.keySet().removeAll(gone);
        return new Destinations(site, row);
    }

    /** Whether any push may go out: the row gives some other site a chance. */
    boolean pushes() {
        return pushes;
    }

    /** A site drawn from the row; null for "not now" (the current site was drawn, or the row gives nobody a chance). */
    String sample(RandomGenerator random) {
        if (!pushes) {
            return null;
        }
        double draw = random.nextDouble(bounds[bounds.length - 1]);
        for (int i = 0; i < sites.length - 1; i++) {
            if (draw < bounds[i]) {
                return chosen(sites[i]);
            }
        }
        return chosen(sites[sites.length - 1]);
    }

    private String chosen(String to) {
        return to.equals(site) ? null : to;
    }
}
