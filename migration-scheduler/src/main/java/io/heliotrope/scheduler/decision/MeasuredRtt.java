package io.heliotrope.scheduler.decision;

import io.heliotrope.scheduler.spi.RttMatrix;

import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** The matrix a decision uses: sites in name order, unknown entries with the reason they are. */
public final class MeasuredRtt implements RttMatrix {
    private final List<String> sites;
    private final long[][] micros;
    private final String[][] unknown;

    MeasuredRtt(List<String> sites, long[][] micros, String[][] unknown) {
        this.sites = List.copyOf(sites);
        this.micros = micros;
        this.unknown = unknown;
    }

    @Override
    public int count() {
        return sites.size();
    }

    @Override
    public String name(int site) {
        return sites.get(site);
    }

    @Override
    public int indexOf(String name) {
        int index = Collections.binarySearch(sites, name);
        return index < 0 ? -1 : index;
    }

    @Override
    public long micros(int from, int to) {
        return micros[from][to];
    }

    /** Why the entry is unknown, or empty when it is known. */
    public Optional<String> unknown(int from, int to) {
        return Optional.ofNullable(unknown[from][to]);
    }

    /** Whether both directions between the two sites are known. */
    public boolean knownBothWays(int a, int b) {
        return micros[a][b] != UNKNOWN && micros[b][a] != UNKNOWN;
    }
}
