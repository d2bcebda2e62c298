package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.Vm;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The cluster as one round of decisions sees it.
 *
 * @param vms       every VM, by name
 * @param migrating the VMs this scheduler's driver is moving now
 */
public record ClusterSnapshot(List<Site> sites, MeasuredRtt rtt, Map<String, Vm> vms, Set<String> migrating, Instant now) {
    public ClusterSnapshot {
        sites = List.copyOf(sites);
        vms = Map.copyOf(vms);
        migrating = Set.copyOf(migrating);
    }
}
