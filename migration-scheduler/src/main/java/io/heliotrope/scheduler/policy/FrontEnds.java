package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Workload;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/** What the built-in workloads share: checking their front ends, and averaging them over a window. */
final class FrontEnds {
    private FrontEnds() {}

    static void checkSite(String site) {
        if (site == null || site.isEmpty()) {
            throw new IllegalArgumentException("a front end's site is missing");
        }
    }

    /** A rate per second: finite and {@code >= 0}. */
    static void checkRate(String site, String field, double rate) {
        if (!Double.isFinite(rate) || rate < 0) {
            throw new IllegalArgumentException(field + " of front end " + site + " must be a finite number >= 0, not " + rate);
        }
    }

    /** An immutable copy, refusing a missing list, a null entry or a site listed twice. */
    static <F> List<F> checked(List<F> frontEnds, Function<F, String> site) {
        if (frontEnds == null) {
            throw new IllegalArgumentException("frontEnds is missing");
        }
        Set<String> seen = new HashSet<>();
        for (F frontEnd : frontEnds) {
            if (frontEnd == null) {
                throw new IllegalArgumentException("frontEnds has a null entry");
            }
            if (!seen.add(site.apply(frontEnd))) {
                throw new IllegalArgumentException("front end site " + site.apply(frontEnd) + " is listed twice");
            }
        }
        return List.copyOf(frontEnds);
    }

    static <F> Set<String> sites(List<F> frontEnds, Function<F, String> site) {
        return Set.copyOf(frontEnds.stream().map(site).toList());
    }

    /**
     * Each front end's rates averaged over the reports, a report without it counting 0; the
     * front ends in the order they first appear.
     */
    static <W extends Workload, F> List<F> average(
            List<TimedReport<W>> reports,
            Function<W, List<F>> frontEnds,
            Function<F, String> site,
            Function<F, double[]> rates,
            BiFunction<String, double[], F> frontEnd) {
        Map<String, double[]> sums = new LinkedHashMap<>();
        for (TimedReport<W> report : reports) {
            for (F each : frontEnds.apply(report.workload())) {
                double[] values = rates.apply(each);
                double[] sum = sums.computeIfAbsent(site.apply(each), key -> new double[values.length]);
                for (int k = 0; k < values.length; k++) {
                    sum[k] += values[k];
                }
            }
        }
        List<F> averaged = new ArrayList<>(sums.size());
        sums.forEach((key, sum) -> {
            for (int k = 0; k < sum.length; k++) {
                sum[k] /= reports.size();
            }
            averaged.add(frontEnd.apply(key, sum));
        });
        return averaged;
    }
}
