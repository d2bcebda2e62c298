package io.heliotrope.scheduler.plugin;

import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Workload;

import java.util.List;
import java.util.Set;

/** A policy that is only listed, never asked to decide: a stand-in for a built-in. */
record TestingPolicy(String name) implements Policy<TestingPolicy.NoLoad> {
    @Override
    public String description() {
        return "built in for the test";
    }

    @Override
    public Class<NoLoad> workloadType() {
        return NoLoad.class;
    }

    @Override
    public NoLoad smooth(List<TimedReport<NoLoad>> reports) {
        throw new UnsupportedOperationException("never used to decide");
    }

    @Override
    public Scorer prepare(Application application, NoLoad workload, RttMatrix rtt) {
        throw new UnsupportedOperationException("never used to decide");
    }

    record NoLoad(Set<String> sites) implements Workload {
    }
}
