package io.heliotrope.bench.sun.plugin;

import io.heliotrope.scheduler.policy.EnsemblePolicy;
import io.heliotrope.scheduler.policy.EnsembleWorkload;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Sites;
import io.heliotrope.scheduler.spi.Solver;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Verdict;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The built-in {@code ensemble} policy, scores, solver and smoothing unchanged, over a shorter
 * workload window. Its 5-minute window is a whole day when a day lasts 5 minutes, and averages
 * two regions in antiphase into a flat load; the follow-the-sun benchmark compresses the
 * window with the day. No setting of the scheduler or of an application changes a policy's
 * window, hence this plugin (loaded with the scheduler's own jar in its plugin directory).
 */
public final class ScaledEnsemblePolicy implements Policy<EnsembleWorkload> {
    public static final String NAME = "ensemble-scaled";

    private final EnsemblePolicy ensemble = new EnsemblePolicy();
    private final Duration window;

    public ScaledEnsemblePolicy(Duration window) {
        this.window = requireNonNull(window, "window is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return ensemble.description() + ", averaged over " + window.toMillis() + " ms of reports (a compressed day)";
    }

    @Override
    public Class<EnsembleWorkload> workloadType() {
        return ensemble.workloadType();
    }

    @Override
    public Duration window() {
        return window;
    }

    @Override
    public EnsembleWorkload smooth(List<TimedReport<EnsembleWorkload>> reports) {
        return ensemble.smooth(reports);
    }

    @Override
    public void validate(Application application) {
        ensemble.validate(application);
    }

    @Override
    public Verdict filter(Application application, Sites sites, Plan plan) {
        return ensemble.filter(application, sites, plan);
    }

    @Override
    public Scorer prepare(Application application, EnsembleWorkload workload, RttMatrix rtt) {
        return ensemble.prepare(application, workload, rtt);
    }

    @Override
    public Optional<Solver> solver() {
        return ensemble.solver();
    }
}
