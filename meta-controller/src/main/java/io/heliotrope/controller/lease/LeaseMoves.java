package io.heliotrope.controller.lease;

import io.heliotrope.controller.Names;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static java.util.Objects.requireNonNullElse;

/**
 * The write-lease moves of an image, as kept in its {@code moves} znode: the site granted
 * the lease last ({@code lastHolder}, kept after it releases the lease) and, per pair of
 * sites X != Y, how many grants to Y followed one to X. A handoff is a grant too; a
 * reopen by the last holder moves nothing. The controller learns the transition table from it.
 */
public record LeaseMoves(String lastHolder, Map<String, Map<String, Long>> counts) {
    public static final LeaseMoves NONE = new LeaseMoves("", Map.of());

    public LeaseMoves {
        lastHolder = requireNonNullElse(lastHolder, "");
        Map<String, Map<String, Long>> sorted = new TreeMap<>();
        requireNonNullElse(counts, Map.<String, Map<String, Long>>of()).forEach((from, row) -> sorted.put(from, Map.copyOf(new TreeMap<>(row))));
        counts = Map.copyOf(sorted);
    }

    /** After a grant to {@code site}: one more move from the last holder when that is another site. */
    public LeaseMoves grantedTo(String site) {
        Names.site(site);
        if (lastHolder.isEmpty() || lastHolder.equals(site)) {
            return new LeaseMoves(site, counts);
        }
        Map<String, Map<String, Long>> next = new TreeMap<>(counts);
        Map<String, Long> row = new TreeMap<>(next.getOrDefault(lastHolder, Map.of()));
        row.merge(site, 1L, Long::sum);
        next.put(lastHolder, row);
        return new LeaseMoves(site, next);
    }

    /**
     * After a handoff from {@code from} to {@code to} was rolled back (the lease went back to
     * {@code from}): its move no longer counts and {@code from} is the last holder again, so
     * that the grant back counts nothing either.
     */
    public LeaseMoves undone(String from, String to) {
        Map<String, Map<String, Long>> next = new TreeMap<>(counts);
        Map<String, Long> row = new TreeMap<>(next.getOrDefault(from, Map.of()));
        if (row.computeIfPresent(to, (site, moves) -> moves > 1 ? moves - 1 : null) == null && row.isEmpty()) {
            next.remove(from);
        } else {
            next.put(from, row);
        }
        return new LeaseMoves(from, next);
    }

    /** The moves from {@code site}, by destination; empty when none was seen. */
    public Map<String, Long> from(String site) {
        return counts.getOrDefault(site, Map.of());
    }

    /** Every site a counted move started or ended at, in name order. */
    public Set<String> sites() {
        Set<String> sites = new TreeSet<>(counts.keySet());
        counts.values().forEach(row -> sites.addAll(row.keySet()));
        return sites;
    }
}
