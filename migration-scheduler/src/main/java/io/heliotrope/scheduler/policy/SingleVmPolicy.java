package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.policy.SingleVmWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Solver;
import io.heliotrope.scheduler.spi.TimedReport;

import java.util.List;
import java.util.Optional;

/** One VM where its front ends' requests wait least (paper 3.4.1): {@code f(p) = -sum_i s_i * L(d_i, p)}. */
public final class SingleVmPolicy implements Policy<SingleVmWorkload> {
    public static final String NAME = "single-vm";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "one VM near its front ends: f(p) = -sum_i rate_i * L(frontEnd_i, p) (Supercloud 3.4.1)";
    }

    @Override
    public Class<SingleVmWorkload> workloadType() {
        return SingleVmWorkload.class;
    }

    @Override
    public SingleVmWorkload smooth(List<TimedReport<SingleVmWorkload>> reports) {
        return new SingleVmWorkload(FrontEnds.average(
                reports,
                SingleVmWorkload::frontEnds,
                FrontEnd::site,
                frontEnd -> new double[] {frontEnd.rate()},
                (site, rates) -> new FrontEnd(site, rates[0])));
    }

    @Override
    public void validate(Application application) {
        if (application.vms().size() != 1) {
            throw new IllegalArgumentException(NAME + " places exactly one VM; " + application.name() + " has " + application.vms().size());
        }
    }

    @Override
    public Scorer prepare(Application application, SingleVmWorkload workload, RttMatrix rtt) {
        validate(application);
        return new SingleVmScorer(workload, rtt);
    }

    @Override
    public Optional<Solver> solver() {
        return Optional.of(SingleVmScorer::solve);
    }
}
