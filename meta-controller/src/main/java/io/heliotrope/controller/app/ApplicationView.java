package io.heliotrope.controller.app;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.controller.vm.Vm;
import io.heliotrope.controller.vm.VmService;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.scheduler.decision.Outcomes;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/** The applications as the status port shows them ({@link ApplicationsStatus}): from the registry, with their VMs' sites. */
public final class ApplicationView {
    /** The decisions shown, across every application. */
    public static final int HISTORY = 20;

    private final ApplicationRegistry applications;
    private final VmService vms;
    private final ExecutorService executor;
    private final Clock clock;

    /** {@code executor} runs the registry's blocking ZooKeeper calls. */
    public ApplicationView(ApplicationRegistry applications, VmService vms, ExecutorService executor, Clock clock) {
        this.applications = requireNonNull(applications, "applications is null");
        this.vms = requireNonNull(vms, "vms is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public CompletableFuture<ApplicationsStatus> statusAsync() {
        return BoundedExecutors.supplyAsync(applications::list, executor, "the controller")
                .thenCombine(vms.list(), (list, defined) -> status(list, defined.stream().collect(Collectors.toMap(Vm::name, Vm::site))));
    }

    private ApplicationsStatus status(List<Application> list, Map<String, String> sites) {
        return new ApplicationsStatus(clock.millis(),
                list.stream().map(application -> state(application, sites)).toList(),
                list.stream()
                        .flatMap(application -> application.getDecisionsList().stream().map(decision -> decision(application.getName(), decision)))
                        .sorted(Comparator.comparingLong(ApplicationsStatus.DecisionState::lastEpochMillis).reversed())
                        .limit(HISTORY)
                        .toList());
    }

    private static ApplicationsStatus.ApplicationState state(Application application, Map<String, String> sites) {
        int count = application.getDecisionsCount();
        return new ApplicationsStatus.ApplicationState(application.getName(), application.getPolicy(),
                application.getVmsList().stream().map(vm -> new ApplicationsStatus.VmSite(vm, sites.getOrDefault(vm, ""))).toList(),
                application.getLeader(), count, count == 0 ? null : decision(application.getName(), application.getDecisions(count - 1)));
    }

    private static ApplicationsStatus.DecisionState decision(String application, Decision decision) {
        return new ApplicationsStatus.DecisionState(application, Outcomes.label(decision.getOutcome()), decision.getReason(), decision.getAtEpochMillis(),
                Math.max(decision.getAtEpochMillis(), decision.getLastEpochMillis()), decision.getRepeats(), decision.getCurrent().getScore(),
                decision.getBest().getScore(),
                decision.getMovesList().stream().map(move -> new ApplicationsStatus.Move(move.getVm(), move.getFromSite(), move.getToSite())).toList(),
                decision.getDryRun());
    }
}
