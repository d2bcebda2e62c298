package io.heliotrope.scheduler.decision;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.scheduler.plugin.Policies;
import io.heliotrope.scheduler.spi.Policy;

import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Applications as operators create them and as they report their workload: every setting
 * checked once, here, with a message that names it.
 */
public final class Applications {
    public static final double DEFAULT_THRESHOLD_FRACTION = 0.1;
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    private final ApplicationStore store;
    private final Policies policies;
    private final ClusterState cluster;
    private final WorkloadWindow workloads;
    private final Clock clock;

    public Applications(ApplicationStore store, Policies policies, ClusterState cluster, WorkloadWindow workloads, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.policies = requireNonNull(policies, "policies is null");
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.workloads = requireNonNull(workloads, "workloads is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Checks and stores a new application; its VMs sorted by name. */
    public Application create(Application request) {
        if (!NAME.matcher(request.getName()).matches()) {
            throw invalid("application name '" + request.getName() + "' must be 1 to 63 lowercase letters, digits and dashes");
        }
        Policy<?> policy = policies.policy(request.getPolicy());
        Set<String> vms = new TreeSet<>(request.getVmsList());
        if (vms.isEmpty()) {
            throw invalid("application " + request.getName() + " needs at least one VM (--vms)");
        }
        if (vms.size() != request.getVmsCount()) {
            throw invalid("application " + request.getName() + " names a VM twice: " + request.getVmsList());
        }
        Set<String> defined = cluster.vms().stream().map(vm -> vm.getSpec().getName()).collect(Collectors.toSet());
        for (String vm : vms) {
            if (!defined.contains(vm)) {
                throw new HeliotropeException(ErrorCode.VM_NOT_FOUND, "VM '" + vm + "' does not exist; create it first (helio vm create)");
            }
        }
        for (Application other : store.list()) {
            Set<String> shared = new HashSet<>(other.getVmsList());
            shared.retainAll(vms);
            if (!shared.isEmpty() && !other.getName().equals(request.getName())) {
                throw invalid("VM " + new TreeSet<>(shared).first() + " belongs to application " + other.getName() + " already");
            }
        }
        if (!request.getLeader().isEmpty() && !vms.contains(request.getLeader())) {
            throw invalid("leader " + request.getLeader() + " is not one of the VMs " + vms);
        }
        if (request.hasThresholdFraction() && !(request.getThresholdFraction() >= 0 && Double.isFinite(request.getThresholdFraction()))) {
            throw invalid("threshold " + request.getThresholdFraction() + " must be a fraction of 0 or more");
        }
        if (request.getWindowMillis() != 0 && request.getWindowMillis() < 1_000) {
            throw invalid("window " + request.getWindowMillis() + " ms: an application's workload window is 1s or more (0: its policy's)");
        }
        if (request.hasThresholdScore() && !(request.getThresholdScore() >= 0 && Double.isFinite(request.getThresholdScore()))) {
            throw invalid("threshold " + request.getThresholdScore() + " must be a score of 0 or more");
        }
        Application application = request.toBuilder().clearVms().addAllVms(vms).clearDecisions().build();
        try {
            policy.validate(view(application, application.getLeader()));
        } catch (IllegalArgumentException e) {
            throw invalid("policy " + policy.name() + " refuses application " + request.getName() + ": " + e.getMessage());
        }
        return store.create(application);
    }

    public Application get(String name) {
        return store.get(name);
    }

    public List<Application> list() {
        return store.list();
    }

    public void delete(String name) {
        store.delete(name);
    }

    /** Checks the report against the application's policy and keeps it; returns the reports now in the window. */
    public int report(String name, String json) {
        Application application = store.get(name);
        Policy<?> policy = policies.policy(application.getPolicy());
        return workloads.add(application, policy, json, Instant.now(clock));
    }

    /** The application as its policy sees it, led by {@code leader} ("" for none). */
    static io.heliotrope.scheduler.spi.Application view(Application application, String leader) {
        List<String> vms = application.getVmsList();
        return new io.heliotrope.scheduler.spi.Application(application.getName(), vms, vms.indexOf(leader), Map.copyOf(application.getParametersMap()));
    }

    private static HeliotropeException invalid(String message) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, message);
    }
}
