package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.proto.scheduler.v1.PlanScore;
import io.heliotrope.proto.scheduler.v1.Term;
import io.heliotrope.scheduler.placement.ArrayPlan;
import io.heliotrope.scheduler.placement.Placement;
import io.heliotrope.scheduler.placement.PlacementProblem;
import io.heliotrope.scheduler.placement.PlanOrder;
import io.heliotrope.scheduler.placement.Search;
import io.heliotrope.scheduler.spi.Explanation;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.Scorer;
import io.heliotrope.scheduler.spi.Solver;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Verdict;
import io.heliotrope.scheduler.spi.Workload;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One application's decision (DESIGN.md section 7, the rule made exact): among all
 * eligible plans the best by {@link PlanOrder}; it is taken when it scores at least
 * f(current) + T and moves something, unless a migration of the application is in flight,
 * one of its VMs moved within the dwell time, or one failed within the cooldown. The
 * decision carries both plans term by term, so that {@code explain} can say why.
 */
final class Decider {
    private final SchedulerConfig config;

    Decider(SchedulerConfig config) {
        this.config = config;
    }

    <W extends Workload> Decision decide(Application application, Policy<W> policy, List<TimedReport<W>> reports, ClusterSnapshot cluster) {
        Decision.Builder decision = Decision.newBuilder()
                .setAtEpochMillis(cluster.now().toEpochMilli())
                .setPolicy(policy.name());
        Optional<String> migrating = migrating(application, cluster);
        if (migrating.isPresent()) {
            return wait(decision, migrating.get());
        }
        Optional<String> cooling = cooling(application, cluster);
        if (cooling.isPresent()) {
            return wait(decision, cooling.get());
        }
        if (reports.isEmpty()) {
            return wait(decision, "no workload reported in the last " + Durations.print(WorkloadWindow.of(application, policy)));
        }
        W workload = policy.smooth(reports);
        MeasuredRtt rtt = cluster.rtt();
        List<String> vms = application.getVmsList();
        String leader = workload.leader().orElse(application.getLeader());
        if (!leader.isEmpty() && !vms.contains(leader)) {
            return error(decision, "the workload names " + leader + " as leader, which is not a VM of " + application.getName());
        }
        int[] current = new int[vms.size()];
        for (int i = 0; i < vms.size(); i++) {
            Vm vm = cluster.vms().get(vms.get(i));
            if (vm == null) {
                return error(decision, "VM " + vms.get(i) + " is not defined");
            }
            current[i] = rtt.indexOf(vm.getSite());
            if (current[i] < 0) {
                return error(decision, "VM " + vms.get(i) + " runs at " + vm.getSite() + ", which is not a registered site");
            }
        }
        ArrayPlan currentPlan = new ArrayPlan(current);
        decision.setCurrent(sites(rtt, current));
        Eligibility eligibility = Eligibility.of(rtt, workload.sites());
        Optional<String> missing = eligibility.missing(current);
        if (missing.isPresent()) {
            return wait(decision, "no decision: " + missing.get());
        }
        io.heliotrope.scheduler.spi.Application view = Applications.view(application, leader);
        PlanRules rules = new PlanRules(view, policy, cluster, current, excluded(application, cluster));
        Scorer scorer = policy.prepare(view, workload, rtt);
        Verdict verdict = rules.verdict(currentPlan);
        double currentScore = verdict.accepted() ? scorer.score(currentPlan) : Double.NEGATIVE_INFINITY;
        decision.setCurrent(score(decision.getCurrent(), scorer, currentPlan, currentScore, verdict));
        double required = currentScore + threshold(application, currentScore);
        decision.setRequiredScore(required);

        long started = System.nanoTime();
        Optional<Placement> found = best(policy, scorer, rules, eligibility, current);
        decision.setSearchMicros((System.nanoTime() - started) / 1_000);
        if (found.isEmpty()) {
            return stay(decision, "no plan passes the filter and the RTT rule");
        }
        Placement best = found.get();
        ArrayPlan bestPlan = new ArrayPlan(best.sites());
        decision.setPlansScored(best.plansScored())
                .setBest(score(sites(rtt, best.sites()), scorer, bestPlan, best.score(), Verdict.ACCEPT));
        if (best.moves() == 0) {
            // No numbers in the reason of a decision that repeats: repeats fold into one entry of the history.
            return stay(decision, "the current plan is the best");
        }
        if (best.score() < required) {
            return stay(decision, "the best plan's gain is below the threshold");
        }
        for (int i = 0; i < vms.size(); i++) {
            if (best.sites()[i] != current[i]) {
                decision.addMoves(Move.newBuilder().setVm(vms.get(i)).setFromSite(rtt.name(current[i])).setToSite(rtt.name(best.sites()[i])));
            }
        }
        Optional<String> held = held(application, cluster);
        if (held.isPresent()) {
            return wait(decision, held.get());
        }
        return decision.setOutcome(DecisionOutcome.DECISION_OUTCOME_MOVE)
                .setReason(verdict.accepted() ? "the best plan scores " + Scores.print(best.score()) + ", at least the " + Scores.print(required) + " a move needs"
                        : "the current plan is rejected (" + verdict.reason() + "); the best allowed plan scores " + Scores.print(best.score()))
                .build();
    }

    private static Optional<Placement> best(Policy<?> policy, Scorer scorer, PlanRules rules, Eligibility eligibility, int[] current) {
        Optional<Solver> solver = policy.solver();
        if (solver.isPresent() && eligibility.everything() && !rules.constrains()) {
            int[] sites = solver.get().solve(scorer, new ArrayPlan(current.clone()));
            ArrayPlan plan = new ArrayPlan(sites);
            // The best of all plans is the best of those the filter accepts, if it accepts it.
            if (rules.accepts(plan)) {
                return Optional.of(new Placement(sites, scorer.score(plan), PlanOrder.moves(sites, current), 0));
            }
        }
        return Search.best(new PlacementProblem(eligibility.usable().length, current, scorer, eligibility.usable(), eligibility.known(), rules,
                Double.NEGATIVE_INFINITY));
    }

    private static double threshold(Application application, double currentScore) {
        if (application.hasThresholdScore()) {
            return application.getThresholdScore();
        }
        if (Double.isInfinite(currentScore)) {
            return 0;
        }
        double fraction = application.hasThresholdFraction() ? application.getThresholdFraction() : Applications.DEFAULT_THRESHOLD_FRACTION;
        return fraction * Math.abs(currentScore);
    }

    /** A migration of the application in flight, by this driver or another. */
    private static Optional<String> migrating(Application application, ClusterSnapshot cluster) {
        for (String name : application.getVmsList()) {
            Vm vm = cluster.vms().get(name);
            if (cluster.migrating().contains(name) || (vm != null && VmHistory.migrating(vm, cluster.now()))) {
                return Optional.of("a migration of " + name + " is in flight; the next decision waits for it to end");
            }
        }
        return Optional.empty();
    }

    /** A migration of the application that failed within the cooldown: the application is left alone until it passes. */
    private Optional<String> cooling(Application application, ClusterSnapshot cluster) {
        for (String name : application.getVmsList()) {
            Vm vm = cluster.vms().get(name);
            Optional<MigrationRecord> failed = vm == null ? Optional.empty() : VmHistory.lastFailure(vm);
            if (failed.isPresent() && VmHistory.ended(failed.get()).plus(config.cooldown()).isAfter(cluster.now())) {
                return Optional.of("a migration of " + name + " to " + failed.get().getToSite() + " failed " + Durations.ago(VmHistory.ended(failed.get()),
                        cluster.now()) + " ago; the application is left alone for " + Durations.print(config.cooldown()) + " after one (cooldown)");
            }
        }
        return Optional.empty();
    }

    /** Why the application's VMs may not move now: one moved within the dwell time. */
    private Optional<String> held(Application application, ClusterSnapshot cluster) {
        Duration dwell = application.getDwellMillis() == 0 ? config.dwell() : Duration.ofMillis(application.getDwellMillis());
        for (String name : application.getVmsList()) {
            Optional<Instant> moved = VmHistory.lastMove(cluster.vms().get(name));
            if (moved.isPresent() && moved.get().plus(dwell).isAfter(cluster.now())) {
                return Optional.of("it would move, but " + name + " moved " + Durations.ago(moved.get(), cluster.now()) + " ago; it stays "
                        + Durations.print(dwell) + " after a move (dwell)");
            }
        }
        return Optional.empty();
    }

    /** Destinations that failed one of the application's VMs within the exclusion time. */
    private Set<Integer> excluded(Application application, ClusterSnapshot cluster) {
        Set<Integer> excluded = new HashSet<>();
        for (String name : application.getVmsList()) {
            VmHistory.lastFailure(cluster.vms().get(name))
                    .filter(failed -> VmHistory.ended(failed).plus(config.exclusion()).isAfter(cluster.now()))
                    .map(failed -> cluster.rtt().indexOf(failed.getToSite()))
                    .filter(site -> site >= 0)
                    .ifPresent(excluded::add);
        }
        return excluded;
    }

    private static PlanScore sites(MeasuredRtt rtt, int[] sites) {
        PlanScore.Builder score = PlanScore.newBuilder();
        for (int site : sites) {
            score.addSites(rtt.name(site));
        }
        return score.build();
    }

    private static PlanScore score(PlanScore sites, Scorer scorer, ArrayPlan plan, double score, Verdict verdict) {
        PlanScore.Builder builder = sites.toBuilder().setScore(score).setRejected(verdict.reason());
        if (verdict.accepted()) {
            Explanation explanation = scorer.explain(plan);
            List<Term> terms = new ArrayList<>();
            for (Explanation.Term term : explanation.terms()) {
                terms.add(Term.newBuilder().setName(term.name()).setValue(term.value()).setContribution(term.contribution()).build());
            }
            builder.addAllTerms(terms);
        }
        return builder.build();
    }

    private static Decision wait(Decision.Builder decision, String reason) {
        return decision.setOutcome(DecisionOutcome.DECISION_OUTCOME_WAIT).setReason(reason).build();
    }

    private static Decision stay(Decision.Builder decision, String reason) {
        return decision.setOutcome(DecisionOutcome.DECISION_OUTCOME_STAY).setReason(reason).build();
    }

    private static Decision error(Decision.Builder decision, String reason) {
        return decision.setOutcome(DecisionOutcome.DECISION_OUTCOME_ERROR).setReason(reason).build();
    }
}
