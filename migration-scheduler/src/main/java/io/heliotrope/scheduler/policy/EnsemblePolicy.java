package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Solver;
import io.heliotrope.scheduler.spi.TimedReport;

import java.util.List;
import java.util.Optional;

/**
 * A replicated ensemble with a leader, ZooKeeper's (paper 3.4.2, as issue #23 makes it exact):
 * {@code m} VMs at {@code p_1..p_m}, the leader at {@code p_l}; per front end {@code R_i = W1_i =
 * avg_j L(d_i, p_j)}; {@code W2 = avg_j L(p_j, p_l)}, {@code j = l} included; {@code W3 = 2 *} the
 * {@code ceil((m-1)/2)}-th smallest {@code L(p_l, p_j)} over the followers (the lower median, the
 * quorum's reply; 0 when {@code m = 1}); {@code f = -sum_i (alpha * R_i * r_i + beta * (W1_i + W2 + W3) * w_i)}.
 * The parameters {@code alpha} and {@code beta} weigh reads and writes (1 unless set).
 */
public final class EnsemblePolicy implements Policy<EnsembleWorkload> {
    public static final String NAME = "ensemble";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "a replicated ensemble with a leader (ZooKeeper): read and write latency of its front ends,"
                + " weighed by the parameters alpha and beta (Supercloud 3.4.2)";
    }

    @Override
    public Class<EnsembleWorkload> workloadType() {
        return EnsembleWorkload.class;
    }

    /** Each front end averaged; the leader the newest report names. */
    @Override
    public EnsembleWorkload smooth(List<TimedReport<EnsembleWorkload>> reports) {
        String leader = null;
        for (int r = reports.size() - 1; r >= 0 && leader == null; r--) {
            leader = reports.get(r).workload().leaderVm();
        }
        return new EnsembleWorkload(leader, FrontEnds.average(
                reports,
                EnsembleWorkload::frontEnds,
                FrontEnd::site,
                frontEnd -> new double[] {frontEnd.reads(), frontEnd.writes()},
                (site, rates) -> new FrontEnd(site, rates[0], rates[1])));
    }

    @Override
    public void validate(Application application) {
        if (application.vms().isEmpty()) {
            throw new IllegalArgumentException(NAME + " needs at least one VM");
        }
        weight(application, "alpha");
        weight(application, "beta");
    }

    @Override
    public Scorer prepare(Application application, EnsembleWorkload workload, RttMatrix rtt) {
        validate(application);
        if (application.leader() < 0) {
            throw new IllegalArgumentException(NAME + " needs a leader: give --leader or name it in the reports");
        }
        return new EnsembleScorer(application.vms().size(), application.leader(),
                weight(application, "alpha"), weight(application, "beta"), workload.frontEnds(), rtt);
    }

    @Override
    public Optional<Solver> solver() {
        return Optional.of(EnsembleSolver::solve);
    }

    private static double weight(Application application, String name) {
        String text = application.parameters().get(name);
        if (text == null) {
            return 1;
        }
        try {
            double weight = Double.parseDouble(text.strip());
            if (Double.isFinite(weight) && weight >= 0) {
                return weight;
            }
        } catch (NumberFormatException e) {
            // refused below, with the others
        }
        throw new IllegalArgumentException(name + " must be a finite number >= 0, not '" + text + "'");
    }
}
