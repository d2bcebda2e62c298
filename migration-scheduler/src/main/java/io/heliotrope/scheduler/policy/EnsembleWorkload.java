package io.heliotrope.scheduler.policy;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.heliotrope.scheduler.spi.Workload;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What an ensemble with a leader reports (paper 3.4.2): the VM leading it now, if the report
 * knows, and the reads and writes each front end forwards,
 * {@code {"leader":"zk1","frontEnds":[{"site":"virginia","reads":900,"writes":100}]}}.
 *
 * @param leaderVm the JSON field {@code leader}, or {@code null} ({@link Workload#leader()} is
 *                 what the scheduler reads, hence the other name)
 */
public record EnsembleWorkload(@JsonProperty("leader") String leaderVm, List<FrontEnd> frontEnds) implements Workload {
    public EnsembleWorkload {
        if (leaderVm != null && leaderVm.isEmpty()) {
            throw new IllegalArgumentException("leader must name a VM or be left out");
        }
        frontEnds = FrontEnds.checked(frontEnds, FrontEnd::site);
    }

    @Override
    public Set<String> sites() {
        return FrontEnds.sites(frontEnds, FrontEnd::site);
    }

    @Override
    public Optional<String> leader() {
        return Optional.ofNullable(leaderVm);
    }

    /** A front end at {@code site} forwarding {@code reads} and {@code writes} requests per second. */
    public record FrontEnd(String site, double reads, double writes) {
        public FrontEnd {
            FrontEnds.checkSite(site);
            FrontEnds.checkRate(site, "reads", reads);
            FrontEnds.checkRate(site, "writes", writes);
        }
    }
}
