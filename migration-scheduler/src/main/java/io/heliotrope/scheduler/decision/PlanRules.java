package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.scheduler.placement.PlacementProblem.PlanFilter;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.Verdict;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a plan must meet besides its score: each site's memory for VMs (counting the VMs of
 * other applications there), no VM sent to a destination that failed it lately, and the
 * policy's own filter. Used by one decision's thread at a time.
 */
final class PlanRules implements PlanFilter {
    private final Application application;
    private final Policy<?> policy;
    private final MeasuredRtt rtt;
    private final int[] current;
    private final long[] memory;
    private final long[] capacity;
    private final long[] usedByOthers;
    private final Set<Integer> excluded;
    private final long[] placed;

    PlanRules(Application application, Policy<?> policy, ClusterSnapshot cluster, int[] current, Set<Integer> excluded) {
        this.application = application;
        this.policy = policy;
        this.rtt = cluster.rtt();
        this.current = current;
        this.excluded = Set.copyOf(excluded);
        int sites = rtt.count();
        this.capacity = new long[sites];
        this.usedByOthers = new long[sites];
        this.placed = new long[sites];
        Map<String, Long> capacities = new HashMap<>();
        for (Site site : cluster.sites()) {
            capacities.put(site.getName(), site.getVmMemoryBytes());
        }
        for (int site = 0; site < sites; site++) {
            capacity[site] = capacities.getOrDefault(rtt.name(site), 0L);
        }
        List<String> vms = application.vms();
        this.memory = new long[vms.size()];
        for (Vm vm : cluster.vms().values()) {
            int site = rtt.indexOf(vm.getSite());
            int index = vms.indexOf(vm.getSpec().getName());
            if (index >= 0) {
                memory[index] = vm.getSpec().getMemoryBytes();
            } else if (site >= 0) {
                usedByOthers[site] += vm.getSpec().getMemoryBytes();
            }
        }
    }

    /** Whether any site limits its VMs' memory, or any destination is excluded: the closed form knows neither. */
    boolean constrains() {
        if (!excluded.isEmpty()) {
            return true;
        }
        for (long limit : capacity) {
            if (limit != 0) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean accepts(Plan plan) {
        return verdict(plan).accepted();
    }

    /** A partial plan whose placed VMs already overfill a site, or go where a migration failed lately, has no accepted completion. */
    @Override
    public boolean admits(Plan partial) {
        return own(partial).accepted();
    }

    /** Accepted, or why not. */
    Verdict verdict(Plan plan) {
        Verdict own = own(plan);
        return own.accepted() ? policy.filter(application, rtt, plan) : own;
    }

    /** The scheduler's own rules, over the VMs the plan places. */
    private Verdict own(Plan plan) {
        Arrays.fill(placed, 0);
        for (int vm = 0; vm < plan.size(); vm++) {
            int site = plan.site(vm);
            if (site == Plan.UNASSIGNED) {
                continue;
            }
            if (site != current[vm] && excluded.contains(site)) {
                return Verdict.reject("a migration to " + rtt.name(site) + " failed lately; it is excluded for a while");
            }
            placed[site] += memory[vm];
        }
        for (int site = 0; site < placed.length; site++) {
            if (capacity[site] != 0 && placed[site] != 0 && usedByOthers[site] + placed[site] > capacity[site]) {
                return Verdict.reject(rtt.name(site) + " has " + capacity[site] + " bytes for VMs; this plan needs "
                        + (usedByOthers[site] + placed[site]));
            }
        }
        return Verdict.ACCEPT;
    }
}
