package io.heliotrope.scheduler.decision;

import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Sites;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Verdict;
import io.heliotrope.scheduler.spi.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A policy for the scheduler's tests: each VM scores minus the rate-weighted round trips from
 * the front ends to it; the newest report wins; parameter {@code avoid} names a site no VM may be at.
 */
final class TestingPolicy implements Policy<TestingPolicy.Load> {
    record Load(Map<String, Double> rates, String leaderVm) implements Workload {
        Load {
            if (rates.values().stream().anyMatch(rate -> rate < 0)) {
                throw new IllegalArgumentException("rates must be 0 or more");
            }
        }

        @Override
        public Set<String> sites() {
            return rates.keySet();
        }

        @Override
        public Optional<String> leader() {
            return Optional.ofNullable(leaderVm);
        }
    }

    @Override
    public String name() {
        return "testing";
    }

    @Override
    public Class<Load> workloadType() {
        return Load.class;
    }

    @Override
    public Load smooth(List<TimedReport<Load>> reports) {
        return reports.get(reports.size() - 1).workload();
    }

    @Override
    public Verdict filter(Application application, Sites sites, Plan plan) {
        String avoid = application.parameters().get("avoid");
        for (int vm = 0; vm < plan.size(); vm++) {
            if (sites.name(plan.site(vm)).equals(avoid)) {
                return Verdict.reject("no VM may run at " + avoid);
            }
        }
        return Verdict.ACCEPT;
    }

    @Override
    public Scorer prepare(Application application, Load workload, RttMatrix rtt) {
        double[] cost = new double[rtt.count()];
        workload.rates().forEach((site, rate) -> {
            int from = rtt.indexOf(site);
            for (int to = 0; to < cost.length; to++) {
                cost[to] += rate * Math.max(0, rtt.micros(from, to));
            }
        });
        return new Scorer() {
            @Override
            public double score(Plan plan) {
                double score = 0;
                for (int vm = 0; vm < plan.size(); vm++) {
                    score -= cost[plan.site(vm)];
                }
                return score;
            }

            @Override
            public Explanation explain(Plan plan) {
                List<Explanation.Term> terms = new ArrayList<>();
                for (int vm = 0; vm < plan.size(); vm++) {
                    terms.add(new Explanation.Term(application.vms().get(vm), cost[plan.site(vm)], -cost[plan.site(vm)]));
                }
                return new Explanation(score(plan), terms);
            }
        };
    }
}
