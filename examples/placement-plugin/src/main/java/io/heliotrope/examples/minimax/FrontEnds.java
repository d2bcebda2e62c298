package io.heliotrope.examples.minimax;

import io.heliotrope.scheduler.spi.Workload;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The workload report, {@code {"frontEnds":[{"site":"virginia","rate":10}]}}: where the
 * requests come from and how many a second.
 */
public record FrontEnds(List<FrontEnd> frontEnds) implements Workload {
    public FrontEnds {
        if (frontEnds == null) {
            throw new IllegalArgumentException("frontEnds is missing");
        }
        frontEnds = List.copyOf(frontEnds);
    }

    /** The front ends that send requests: only their round trips count. */
    @Override
    public Set<String> sites() {
        Set<String> sites = new TreeSet<>();
        for (FrontEnd frontEnd : frontEnds) {
            if (frontEnd.rate() > 0) {
                sites.add(frontEnd.site());
            }
        }
        return sites;
    }

    /** Requests a second from the front ends at {@code site}. */
    public record FrontEnd(String site, double rate) {
        public FrontEnd {
            if (site == null || site.isBlank()) {
                throw new IllegalArgumentException("frontEnds[].site is missing");
            }
            if (!(rate >= 0) || Double.isInfinite(rate)) {
                throw new IllegalArgumentException("frontEnds[].rate of " + site + " must be a finite number >= 0, not " + rate);
            }
        }
    }
}
