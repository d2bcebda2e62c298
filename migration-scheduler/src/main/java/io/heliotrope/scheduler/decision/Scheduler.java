package io.heliotrope.scheduler.decision;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.ApplicationDecision;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.proto.scheduler.v1.SchedulerStatus;
import io.heliotrope.scheduler.plugin.Policies;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.Workload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The scheduler beside the controller (DESIGN.md section 7): every period, while elected,
 * one decision per application, recorded, and its migrations started through the driver.
 * Standing by, it still reads the RTT matrix each period, so that it has its window's
 * minimum when it takes over.
 */
public final class Scheduler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
    private static final String REQUESTED_BY = "scheduler";

    private final SchedulerConfig config;
    private final ApplicationStore store;
    private final Policies policies;
    private final ClusterState cluster;
    private final WorkloadWindow workloads;
    private final Election election;
    private final Mover mover;
    private final SchedulerMetrics metrics;
    private final Clock clock;
    private final Decider decider;
    private final RttHistory rtt;
    private final ScheduledExecutorService timer;
    private volatile Instant lastRound = Instant.EPOCH;

    public Scheduler(SchedulerConfig config, ApplicationStore store, Policies policies, ClusterState cluster, Election election, Mover mover,
            SchedulerMetrics metrics, Clock clock) {
        this.config = requireNonNull(config, "config is null");
        this.store = requireNonNull(store, "store is null");
        this.policies = requireNonNull(policies, "policies is null");
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.workloads = new WorkloadWindow(store);
        this.election = requireNonNull(election, "election is null");
        this.mover = requireNonNull(mover, "mover is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.decider = new Decider(config);
        this.rtt = new RttHistory(config.rttWindow());
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "scheduler");
            thread.setDaemon(true);
            return thread;
        });
    }

    public WorkloadWindow workloads() {
        return workloads;
    }

    /** Starts the periodic rounds, the first one period from now. */
    public void start() {
        timer.scheduleWithFixedDelay(this::tick, config.period().toMillis(), config.period().toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            if (election.isLeader()) {
                run("", false);
            } else {
                rtt.add(cluster.rtt());
            }
        } catch (RuntimeException e) {
            log.warn("scheduler round failed; the next one is in {}", Durations.print(config.period()), e);
        }
    }

    /**
     * One round now, for every application (or those of {@code policy}). A real round runs
     * only where the scheduler is elected ({@code NOT_LEADER} elsewhere); a dry run anywhere,
     * recording and moving nothing.
     */
    public synchronized List<ApplicationDecision> run(String policy, boolean dryRun) {
        if (!dryRun && !election.isLeader()) {
            throw new HeliotropeException(ErrorCode.NOT_LEADER, "this controller's scheduler stands by; the one deciding is "
                    + election.leader().orElse("not elected yet") + " (a dry run works anywhere)");
        }
        ClusterSnapshot snapshot = snapshot();
        List<ApplicationDecision> decisions = new ArrayList<>();
        for (Application application : store.list()) {
            if (!policy.isEmpty() && !policy.equals(application.getPolicy())) {
                continue;
            }
            Decision decision = decide(application, snapshot).toBuilder().setDryRun(dryRun).build();
            if (!dryRun) {
                act(application, decision);
            }
            decisions.add(ApplicationDecision.newBuilder().setApplication(application.getName()).setDecision(decision).build());
        }
        if (!dryRun) {
            lastRound = snapshot.now();
        }
        return decisions;
    }

    /** What a round would decide for the application now, term by term; moves and records nothing. */
    public synchronized Decision explain(String name) {
        return decide(store.get(name), snapshot()).toBuilder().setDryRun(true).build();
    }

    public SchedulerStatus status() {
        return SchedulerStatus.newBuilder()
                .setActive(election.isLeader())
                .setLeader(election.leader().orElse(""))
                .setPeriodMillis(config.period().toMillis())
                .setLastRoundEpochMillis(lastRound.toEpochMilli())
                .build();
    }

    private ClusterSnapshot snapshot() {
        Instant now = Instant.now(clock);
        rtt.add(cluster.rtt());
        var sites = cluster.sites();
        Map<String, Vm> vms = cluster.vms().stream().collect(Collectors.toMap(vm -> vm.getSpec().getName(), Function.identity()));
        return new ClusterSnapshot(sites, rtt.matrix(sites, now), vms, mover.migrating(), now);
    }

    private Decision decide(Application application, ClusterSnapshot snapshot) {
        Decision.Builder failed = Decision.newBuilder().setAtEpochMillis(snapshot.now().toEpochMilli()).setPolicy(application.getPolicy())
                .setOutcome(DecisionOutcome.DECISION_OUTCOME_ERROR);
        try {
            return decide(application, policies.policy(application.getPolicy()), snapshot);
        } catch (HeliotropeException e) {
            return failed.setReason(e.getMessage()).build();
        } catch (IllegalArgumentException e) {
            // A policy's way to refuse what it was given (a missing leader, a bad parameter): the operator's to fix.
            return failed.setReason("policy " + application.getPolicy() + ": " + e.getMessage()).build();
        } catch (RuntimeException e) {
            log.warn("{}: policy {} failed", application.getName(), application.getPolicy(), e);
            return failed.setReason("policy " + application.getPolicy() + " failed: " + e).build();
        }
    }

    private <W extends Workload> Decision decide(Application application, Policy<W> policy, ClusterSnapshot snapshot) {
        return decider.decide(application, policy, workloads.reports(application, policy, snapshot.now()), snapshot);
    }

    private void act(Application application, Decision decision) {
        metrics.decided(decision);
        store.record(application.getName(), decision);
        if (decision.getOutcome() != DecisionOutcome.DECISION_OUTCOME_MOVE) {
            log.debug("{}: {} ({})", application.getName(), decision.getOutcome(), decision.getReason());
            return;
        }
        log.info("{}: moving {} ({})", application.getName(), moves(decision.getMovesList()), decision.getReason());
        mover.start(decision.getMovesList(), REQUESTED_BY).forEach((vm, result) -> result.whenComplete((record, failure) -> ended(application, vm, record, failure)));
    }

    private void ended(Application application, String vm, MigrationRecord record, Throwable failure) {
        String reason;
        if (failure != null) {
            reason = "the migration of " + vm + " could not start: " + HeliotropeException.unwrap(failure).getMessage();
        } else if (record.getOutcome() != MigrationOutcome.MIGRATION_OUTCOME_COMPLETED) {
            String ended = switch (record.getOutcome()) {
                case MIGRATION_OUTCOME_ROLLED_BACK -> " was rolled back: ";
                case MIGRATION_OUTCOME_CANCELLED -> " was cancelled: ";
                default -> " failed: ";
            };
            reason = "the migration of " + vm + " to " + record.getToSite() + ended
                    + record.getReason() + "; " + record.getToSite() + " is excluded for " + Durations.print(config.exclusion());
        } else {
            return;
        }
        Decision decision = Decision.newBuilder()
                .setAtEpochMillis(clock.millis())
                .setPolicy(application.getPolicy())
                .setOutcome(DecisionOutcome.DECISION_OUTCOME_MIGRATION_FAILED)
                .setReason(reason + " (cooldown " + Durations.print(config.cooldown()) + ")")
                .build();
        try {
            metrics.decided(decision);
            store.record(application.getName(), decision);
        } catch (RuntimeException e) {
            log.warn("{}: cannot record a failed migration: {}", application.getName(), reason, e);
        }
        log.warn("{}: {}", application.getName(), decision.getReason());
    }

    private static String moves(List<Move> moves) {
        return moves.stream().map(move -> move.getVm() + " " + move.getFromSite() + " -> " + move.getToSite()).collect(Collectors.joining(", "));
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        election.close();
    }
}
