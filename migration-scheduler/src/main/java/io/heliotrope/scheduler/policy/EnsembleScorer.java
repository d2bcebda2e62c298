package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.policy.EnsembleWorkload.FrontEnd;
import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * {@link EnsemblePolicy}'s scorer. With {@code c_i = alpha r_i + beta w_i}, {@code W = sum_i w_i},
 * {@code S_i = sum_j L(d_i, p_j)}, {@code S_l = sum_j L(p_j, p_l)} and {@code med} the lower median,
 * {@code -f * m = F = sum_i c_i S_i + beta W (S_l + 2 m med)}. The sums of round trips are exact
 * longs, so followers that trade sites give the same bits, and the floating arithmetic happens
 * once, in one order; with integer rates and weights it is exact, so equal objectives are equal scores.
 *
 * <p>For bounds and the {@link EnsembleSolver}, {@code F} splits per VM: the leader at {@code l}
 * costs {@code a(l) + beta W L(l, l)}, a follower at {@code q} costs {@code g_l(q) = a(q) + beta W L(q, l)},
 * with {@code a(p) = sum_i c_i L(d_i, p)}, and the median adds {@code 2 m beta W med}.
 */
final class EnsembleScorer implements Scorer {
    /** Room for the rounding by which a bound's sums may differ from a score's. */
    private static final double SLACK = 1e-12;

    final int vms;
    final int leader;
    final int followers;
    /** Which smallest follower round trip is the lower median: {@code ceil((m-1)/2)}. */
    final int rank;
    final int sites;
    /** The VMs other than the leader, in VM order. */
    final int[] followerVms;
    /** {@code 2 m beta W}, what the median round trip costs; 0 when there are no followers. */
    final double medianWeight;
    /** Per leader site {@code l}: the leader's own cost. */
    final double[] leaderCost;
    /** {@code [l * sites + q]}: {@code g_l(q)}. */
    final double[] followerCost;
    /** Per leader site: {@code min_q g_l(q)}. */
    final double[] cheapestFollower;
    /** {@code [l * sites + k]}: the {@code k}-th smallest {@code L(l, q)} over the sites {@code q}. */
    final long[] nearRtt;
    /** {@code [l * sites + k]}: the least {@code g_l} among the {@code k + 1} sites nearest {@code l}. */
    final double[] nearCost;

    private final List<FrontEnd> frontEnds;
    private final double alpha;
    private final double beta;
    /** {@code [p * n + i]}: {@code L(d_i, p)}. */
    private final long[] frontEndRtt;
    /** {@code [l * sites + q]}: {@code L(q, l)}. */
    private final long[] toLeader;
    /** {@code [l * sites + q]}: {@code L(l, q)}. */
    private final long[] fromLeader;
    private final double[] weight;
    private final double writeWeight;
    private final long[] sums;
    private final long[] followerRtts;

    EnsembleScorer(int vms, int leader, double alpha, double beta, List<FrontEnd> frontEnds, RttMatrix rtt) {
        this.vms = vms;
        this.leader = leader;
        this.followers = vms - 1;
        this.rank = vms / 2;
        this.sites = rtt.count();
        this.followerVms = IntStream.range(0, vms).filter(vm -> vm != leader).toArray();
        this.frontEnds = frontEnds;
        this.alpha = alpha;
        this.beta = beta;
        int n = frontEnds.size();
        frontEndRtt = new long[sites * n];
        weight = new double[n];
        double writes = 0;
        for (int i = 0; i < n; i++) {
            FrontEnd frontEnd = frontEnds.get(i);
            int from = RoundTrips.site(rtt, frontEnd.site());
            for (int p = 0; p < sites; p++) {
                frontEndRtt[p * n + i] = RoundTrips.micros(rtt, from, p);
            }
            weight[i] = alpha * frontEnd.reads() + beta * frontEnd.writes();
            writes += frontEnd.writes();
        }
        writeWeight = beta * writes;
        medianWeight = followers == 0 ? 0 : 2.0 * vms * writeWeight;
        toLeader = new long[sites * sites];
        fromLeader = new long[sites * sites];
        for (int l = 0; l < sites; l++) {
            for (int q = 0; q < sites; q++) {
                toLeader[l * sites + q] = RoundTrips.micros(rtt, q, l);
                fromLeader[l * sites + q] = RoundTrips.micros(rtt, l, q);
            }
        }
        double[] siteCost = new double[sites];
        for (int p = 0; p < sites; p++) {
            for (int i = 0; i < n; i++) {
                siteCost[p] += weight[i] * frontEndRtt[p * n + i];
            }
        }
        leaderCost = new double[sites];
        followerCost = new double[sites * sites];
        cheapestFollower = new double[sites];
        nearRtt = new long[sites * sites];
        nearCost = new double[sites * sites];
        for (int l = 0; l < sites; l++) {
            int row = l * sites;
            leaderCost[l] = siteCost[l] + writeWeight * toLeader[row + l];
            cheapestFollower[l] = Double.POSITIVE_INFINITY;
            for (int q = 0; q < sites; q++) {
                followerCost[row + q] = siteCost[q] + writeWeight * toLeader[row + q];
                cheapestFollower[l] = Math.min(cheapestFollower[l], followerCost[row + q]);
            }
            Integer[] near = IntStream.range(0, sites).boxed().toArray(Integer[]::new);
            Arrays.sort(near, Comparator.comparingLong(q -> fromLeader[row + q]));
            for (int k = 0; k < sites; k++) {
                nearRtt[row + k] = fromLeader[row + near[k]];
                nearCost[row + k] = Math.min(k == 0 ? Double.POSITIVE_INFINITY : nearCost[row + k - 1], followerCost[row + near[k]]);
            }
        }
        sums = new long[n];
        followerRtts = new long[followers];
    }

    long fromLeader(int l, int q) {
        return fromLeader[l * sites + q];
    }

    @Override
    public double score(Plan plan) {
        return objective(gather(plan), median());
    }

    /**
     * The best completion's score, to rounding: for each leader site the partial plan allows,
     * the followers it has placed at their cost, and the cheapest way to place the others
     * (the least cost whose lower median is at most {@code tau}, over every {@code tau}).
     */
    @Override
    public double bound(Plan partial) {
        int l = partial.site(leader);
        double least = Double.POSITIVE_INFINITY;
        if (l != Plan.UNASSIGNED) {
            least = leastCost(l, partial);
        } else {
            for (int site = 0; site < sites; site++) {
                least = Math.min(least, leastCost(site, partial));
            }
        }
        double bound = -least / vms;
        return bound + Math.abs(bound) * SLACK;
    }

    @Override
    public int[] roleClasses() {
        return IntStream.range(0, vms).map(vm -> vm == leader ? 0 : 1).toArray();
    }

    @Override
    public Explanation explain(Plan plan) {
        long toLeaderSum = gather(plan);
        long median = median();
        double w2 = (double) toLeaderSum / vms;
        double w3 = 2.0 * median;
        List<Explanation.Term> terms = new ArrayList<>();
        for (int i = 0; i < frontEnds.size(); i++) {
            FrontEnd frontEnd = frontEnds.get(i);
            String site = "[" + frontEnd.site() + "]";
            double r = (double) sums[i] / vms;
            terms.add(new Explanation.Term("R" + site, r, -(alpha * r * frontEnd.reads())));
            terms.add(new Explanation.Term("W1" + site, r, -(beta * r * frontEnd.writes())));
            terms.add(new Explanation.Term("W2" + site, w2, -(beta * w2 * frontEnd.writes())));
            terms.add(new Explanation.Term("W3" + site, w3, -(beta * w3 * frontEnd.writes())));
        }
        return new Explanation(objective(toLeaderSum, median), terms);
    }

    /** Fills {@link #sums} and {@link #followerRtts}; returns {@code S_l}. */
    private long gather(Plan plan) {
        int n = sums.length;
        int row = plan.site(leader) * sites;
        Arrays.fill(sums, 0);
        long toLeaderSum = 0;
        int f = 0;
        for (int vm = 0; vm < vms; vm++) {
            int p = plan.site(vm);
            for (int i = 0, base = p * n; i < n; i++) {
                sums[i] += frontEndRtt[base + i];
            }
            toLeaderSum += toLeader[row + p];
            if (vm != leader) {
                followerRtts[f++] = fromLeader[row + p];
            }
        }
        return toLeaderSum;
    }

    private long median() {
        sort(followerRtts, followers);
        return rank == 0 ? 0 : followerRtts[rank - 1];
    }

    private double objective(long toLeaderSum, long median) {
        double cost = 0;
        for (int i = 0; i < sums.length; i++) {
            cost += weight[i] * sums[i];
        }
        cost += writeWeight * (toLeaderSum + 2L * vms * median);
        return -cost / vms;
    }

    /** The least {@code F} of a completion of {@code partial} with the leader at {@code l}. */
    private double leastCost(int l, Plan partial) {
        int row = l * sites;
        double cost = leaderCost[l];
        int placed = 0;
        for (int vm : followerVms) {
            int q = partial.site(vm);
            if (q != Plan.UNASSIGNED) {
                cost += followerCost[row + q];
                followerRtts[placed++] = fromLeader[row + q];
            }
        }
        sort(followerRtts, placed);
        int open = followers - placed;
        double rest = Double.POSITIVE_INFINITY;
        int within = 0;
        for (int k = 0; k < sites; k++) {
            long tau = nearRtt[row + k];
            if (medianWeight * tau + open * cheapestFollower[l] >= rest) {
                break;
            }
            while (within < placed && followerRtts[within] <= tau) {
                within++;
            }
            int needed = Math.max(0, rank - within);
            if (needed <= open) {
                rest = Math.min(rest, medianWeight * tau + needed * nearCost[row + k] + (open - needed) * cheapestFollower[l]);
            }
        }
        return cost + rest;
    }

    /** Insertion sort of {@code values[0..count)}: a handful of values, no allocation. */
    private static void sort(long[] values, int count) {
        for (int i = 1; i < count; i++) {
            long value = values[i];
            int j = i - 1;
            for (; j >= 0 && values[j] > value; j--) {
                values[j + 1] = values[j];
            }
            values[j + 1] = value;
        }
    }
}
