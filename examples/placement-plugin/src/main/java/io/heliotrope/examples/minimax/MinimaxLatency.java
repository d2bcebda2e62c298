package io.heliotrope.examples.minimax;

import io.heliotrope.examples.minimax.FrontEnds.FrontEnd;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Sites;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Verdict;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Policy {@code minimax-latency}: one VM, placed where the slowest of its front ends is
 * served fastest, f(p) = -max over front ends with a rate above 0 of L(d_i, p), in
 * microseconds. The built-in {@code single-vm} minimises the rate-weighted sum instead,
 * which lets a busy front end far away pull the VM from a quiet one next door; this one
 * bounds the worst user's round trip whatever the rates.
 *
 * <p>Parameter {@code avoid}: comma-separated names of sites the VM must not run at
 * ({@code helio app create ... --param avoid=taiwan}).
 */
public final class MinimaxLatency implements Policy<FrontEnds> {
    static final String AVOID = "avoid";

    @Override
    public String name() {
        return "minimax-latency";
    }

    @Override
    public String description() {
        return "one VM where its slowest front end's round trip is shortest; parameter avoid=site,site";
    }

    @Override
    public Class<FrontEnds> workloadType() {
        return FrontEnds.class;
    }

    /** Each front end's rate averaged over the window (0 in a report that leaves it out). */
    @Override
    public FrontEnds smooth(List<TimedReport<FrontEnds>> reports) {
        Map<String, Double> sums = new TreeMap<>();
        for (TimedReport<FrontEnds> report : reports) {
            for (FrontEnd frontEnd : report.workload().frontEnds()) {
                sums.merge(frontEnd.site(), frontEnd.rate(), Double::sum);
            }
        }
        List<FrontEnd> averages = new ArrayList<>();
        sums.forEach((site, sum) -> averages.add(new FrontEnd(site, sum / reports.size())));
        return new FrontEnds(averages);
    }

    @Override
    public void validate(Application application) {
        if (application.vms().size() != 1) {
            throw new IllegalArgumentException(name() + " places one VM; " + application.name()
                    + " has " + application.vms().size());
        }
    }

    @Override
    public Verdict filter(Application application, Sites sites, Plan plan) {
        String site = sites.name(plan.site(0));
        if (avoided(application).contains(site)) {
            return Verdict.reject(application.vms().get(0) + " may not run at " + site + " (" + AVOID + "="
                    + application.parameters().get(AVOID) + ")");
        }
        return Verdict.ACCEPT;
    }

    @Override
    public Scorer prepare(Application application, FrontEnds workload, RttMatrix rtt) {
        int[] frontEnds = workload.sites().stream()
                .mapToInt(site -> {
                    int index = rtt.indexOf(site);
                    if (index < 0) {
                        throw new IllegalArgumentException("front end site '" + site + "' is not a registered site");
                    }
                    return index;
                })
                .toArray();
        return new WorstRoundTrip(rtt, frontEnds);
    }

    private static Set<String> avoided(Application application) {
        String avoid = application.parameters().getOrDefault(AVOID, "");
        Set<String> sites = new HashSet<>();
        for (String site : avoid.split(",")) {
            if (!site.isBlank()) {
                sites.add(site.strip());
            }
        }
        return sites;
    }
}
