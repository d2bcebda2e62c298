package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.spi.Workload;

import java.util.List;
import java.util.Set;

/**
 * What a single VM reports (paper 3.4.1): the requests each front end forwards to it,
 * {@code {"frontEnds":[{"site":"virginia","rate":120.5}]}}.
 */
public record SingleVmWorkload(List<FrontEnd> frontEnds) implements Workload {
    public SingleVmWorkload {
        frontEnds = FrontEnds.checked(frontEnds, FrontEnd::site);
    }

    @Override
    public Set<String> sites() {
        return FrontEnds.sites(frontEnds, FrontEnd::site);
    }

    /** A front end at {@code site} forwarding {@code rate} requests per second. */
    public record FrontEnd(String site, double rate) {
        public FrontEnd {
            FrontEnds.checkSite(site);
            FrontEnds.checkRate(site, "rate", rate);
        }
    }
}
