package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.RttRow;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.scheduler.spi.TimedReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class TestDecider {
    private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");
    // oregon, taiwan, virginia (name order); virginia-taiwan 75 ms, virginia-oregon 60 ms, oregon-taiwan 100 ms.
    private static final Map<String, Map<String, Long>> RTT = Map.of(
            "virginia", Map.of("taiwan", 75_000L, "oregon", 60_000L),
            "taiwan", Map.of("virginia", 75_000L, "oregon", 100_000L),
            "oregon", Map.of("virginia", 60_000L, "taiwan", 100_000L));
    private static final SchedulerConfig CONFIG = new SchedulerConfig(null, Duration.ofMinutes(10), Duration.ofMinutes(5), Duration.ofMinutes(30), null,
            Path.of("plugins"));

    private final Decider decider = new Decider(CONFIG);
    private final Map<String, Vm> vms = new HashMap<>();
    private final List<Site> sites = List.of(site("oregon", 0), site("taiwan", 0), site("virginia", 0));
    private Set<String> migrating = Set.of();
    private RttHistory rtt = measured(NOW);

    @Test
    void movesTheVmToItsLoadWhenTheGainClearsTheThreshold() {
        vm("web", "virginia", 256);

        Decision decision = decide(application("web"), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
        assertThat(decision.getMovesList()).containsExactly(move("web", "virginia", "taiwan"));
        // At virginia: 10/s * 75 ms; at taiwan: 10/s * 1 ms (the intra-site default).
        assertThat(decision.getCurrent().getScore()).isEqualTo(-750_000);
        assertThat(decision.getBest().getScore()).isEqualTo(-10_000);
        assertThat(decision.getBest().getSitesList()).containsExactly("taiwan");
        assertThat(decision.getRequiredScore()).isEqualTo(-675_000);
        assertThat(decision.getCurrent().getTermsList()).singleElement().satisfies(term -> assertThat(term.getContribution()).isEqualTo(-750_000));
    }

    @Test
    void aGainBelowTheThresholdMovesNothing() {
        vm("web", "virginia", 256);

        Decision decision = decide(application("web").toBuilder().setThresholdScore(800_000).build(), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_STAY);
        assertThat(decision.getReason()).isEqualTo("the best plan's gain is below the threshold");
        assertThat(decision.getRequiredScore()).isEqualTo(50_000);
        assertThat(decision.getMovesList()).isEmpty();
    }

    @Test
    void theCurrentPlanStaysWhenItIsTheBest() {
        vm("web", "taiwan", 256);

        Decision decision = decide(application("web"), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_STAY);
        assertThat(decision.getReason()).isEqualTo("the current plan is the best");
        assertThat(decision.getCurrent().getScore()).isEqualTo(-10_000);
    }

    @Test
    void aVmWithinItsDwellTimeWaitsAndTheDecisionSaysWhereItWouldGo() {
        vms.put("web", vm("web", "virginia", 256).toBuilder().addMigrations(record("taiwan", "virginia", MigrationOutcome.MIGRATION_OUTCOME_COMPLETED,
                NOW.minusSeconds(60))).build());

        Decision decision = decide(application("web"), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_WAIT);
        assertThat(decision.getReason()).isEqualTo("it would move, but web moved 1m ago; it stays 10m after a move (dwell)");
        assertThat(decision.getMovesList()).containsExactly(move("web", "virginia", "taiwan"));
    }

    @Test
    void theApplicationsOwnDwellOverridesTheSchedulers() {
        vms.put("web", vm("web", "virginia", 256).toBuilder().addMigrations(record("taiwan", "virginia", MigrationOutcome.MIGRATION_OUTCOME_COMPLETED,
                NOW.minusSeconds(60))).build());

        Decision decision = decide(application("web").toBuilder().setDwellMillis(30_000).build(), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
    }

    @Test
    void noDecisionWhileAMigrationOfTheApplicationIsInFlight() {
        vm("web", "virginia", 256);
        migrating = Set.of("web");

        Decision decision = decide(application("web"), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_WAIT);
        assertThat(decision.getReason()).isEqualTo("a migration of web is in flight; the next decision waits for it to end");
    }

    @Test
    void aMigrationAnotherDriverReportedLatelyCountsAsInFlightAndAStaleReportDoesNot() {
        Vm web = vm("web", "virginia", 256);
        vms.put("web", web.toBuilder().setInFlight(MigrationInFlight.newBuilder().setToSite("taiwan").setReportedEpochMillis(NOW.minusSeconds(5).toEpochMilli()))
                .build());
        assertThat(decide(application("web"), load(Map.of("taiwan", 10.0))).getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_WAIT);

        vms.put("web", web.toBuilder().setInFlight(MigrationInFlight.newBuilder().setToSite("taiwan").setReportedEpochMillis(NOW.minusSeconds(61).toEpochMilli()))
                .build());
        assertThat(decide(application("web"), load(Map.of("taiwan", 10.0))).getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
    }

    @Test
    void aStaleEntryTheCurrentPlanNeedsMeansNoDecision() {
        vm("web", "virginia", 256);
        rtt = measured(NOW.minusSeconds(31));

        Decision decision = decide(application("web"), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_WAIT);
        assertThat(decision.getReason()).isEqualTo("no decision: the current plan needs the round trip between virginia and taiwan: "
                + "virginia measured taiwan 31 s ago, more than 3 probe periods of 10 s");
    }

    @Test
    void aFrontEndAtAnUnknownSiteMeansNoDecision() {
        vm("web", "virginia", 256);

        Decision decision = decide(application("web"), load(Map.of("mars", 10.0)));

        assertThat(decision.getReason()).isEqualTo("no decision: the workload's front ends at [mars] are not registered sites");
    }

    @Test
    void afterAFailedMigrationTheApplicationCoolsDownThenAvoidsThatDestinationForAWhile() {
        Vm web = vm("web", "virginia", 256);
        vms.put("web", web.toBuilder().addMigrations(record("virginia", "taiwan", MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK, NOW.minusSeconds(60))).build());
        Decision cooling = decide(application("web"), load(Map.of("taiwan", 10.0)));
        assertThat(cooling.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_WAIT);
        assertThat(cooling.getReason()).isEqualTo("a migration of web to taiwan failed 1m ago; the application is left alone for 5m after one (cooldown)");

        vms.put("web", web.toBuilder().addMigrations(record("virginia", "taiwan", MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK, NOW.minusSeconds(600))).build());
        // taiwan is excluded: with its load at taiwan, the VM's next best is virginia, where it is.
        Decision excluded = decide(application("web"), load(Map.of("taiwan", 10.0)));
        assertThat(excluded.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_STAY);
        assertThat(excluded.getBest().getSitesList()).containsExactly("virginia");

        vms.put("web", web.toBuilder().addMigrations(record("virginia", "taiwan", MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK, NOW.minusSeconds(1801))).build());
        assertThat(decide(application("web"), load(Map.of("taiwan", 10.0))).getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
    }

    @Test
    void aSiteWithoutMemoryForTheVmIsNotChosen() {
        vm("web", "virginia", 512);
        vm("other", "taiwan", 768);
        List<Site> limited = List.of(site("oregon", 0), site("taiwan", 1024), site("virginia", 0));

        Decision decision = decider.decide(application("web"), new TestingPolicy(), List.of(report(load(Map.of("taiwan", 10.0)))),
                new ClusterSnapshot(limited, rtt.matrix(limited, NOW), vms, migrating, NOW));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_STAY);
        assertThat(decision.getBest().getSitesList()).containsExactly("virginia");
    }

    @Test
    void aCurrentPlanThePolicyRejectsScoresMinusInfinitySoAnyAllowedPlanIsBetter() {
        vm("web", "taiwan", 256);

        Decision decision = decide(application("web").toBuilder().putParameters("avoid", "taiwan").build(), load(Map.of("taiwan", 10.0)));

        assertThat(decision.getCurrent().getScore()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(decision.getCurrent().getRejected()).isEqualTo("no VM may run at taiwan");
        assertThat(decision.getReason()).isEqualTo("the current plan is rejected (no VM may run at taiwan); the best allowed plan scores -750000");
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_MOVE);
        assertThat(decision.getMovesList()).containsExactly(move("web", "taiwan", "virginia"));
    }

    @Test
    void withoutReportsInTheWindowTheApplicationWaits() {
        vm("web", "virginia", 256);

        Decision decision = decider.decide(application("web"), new TestingPolicy(), List.of(), snapshot());

        assertThat(decision.getReason()).isEqualTo("no workload reported in the last 5m");
        Decision ownWindow = decider.decide(application("web").toBuilder().setWindowMillis(30_000).build(), new TestingPolicy(), List.of(), snapshot());
        assertThat(ownWindow.getReason()).as("the application's own window").isEqualTo("no workload reported in the last 30s");
    }

    @Test
    void aLeaderTheReportNamesMustBeAVmOfTheApplication() {
        vm("web", "virginia", 256);

        Decision decision = decide(application("web"), new TestingPolicy.Load(Map.of("taiwan", 1.0), "db"));

        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DECISION_OUTCOME_ERROR);
        assertThat(decision.getReason()).isEqualTo("the workload names db as leader, which is not a VM of web");
    }

    private Decision decide(Application application, TestingPolicy.Load load) {
        return decider.decide(application, new TestingPolicy(), List.of(report(load)), snapshot());
    }

    private ClusterSnapshot snapshot() {
        return new ClusterSnapshot(sites, rtt.matrix(sites, NOW), vms, migrating, NOW);
    }

    private static TimedReport<TestingPolicy.Load> report(TestingPolicy.Load load) {
        return new TimedReport<>(NOW.minusSeconds(10), load);
    }

    private static TestingPolicy.Load load(Map<String, Double> rates) {
        return new TestingPolicy.Load(rates, null);
    }

    private static Application application(String... vms) {
        return Application.newBuilder().setName("web").setPolicy("testing").addAllVms(List.of(vms)).build();
    }

    private Vm vm(String name, String site, long memoryMiB) {
        Vm vm = Vm.newBuilder().setSpec(VmSpec.newBuilder().setName(name).setMemoryBytes(memoryMiB << 20)).setSite(site).build();
        vms.put(name, vm);
        return vm;
    }

    private static MigrationRecord record(String from, String to, MigrationOutcome outcome, Instant ended) {
        return MigrationRecord.newBuilder().setFromSite(from).setToSite(to).setOutcome(outcome)
                .setStartedEpochMillis(ended.minusSeconds(20).toEpochMilli()).setTotalMicros(20_000_000).build();
    }

    private static Move move(String vm, String from, String to) {
        return Move.newBuilder().setVm(vm).setFromSite(from).setToSite(to).build();
    }

    private static Site site(String name, long vmMemoryMiB) {
        return Site.newBuilder().setName(name).setVmMemoryBytes(vmMemoryMiB << 20).build();
    }

    private static RttHistory measured(Instant at) {
        RttHistory history = new RttHistory(Duration.ofMinutes(2));
        RttMatrix.Builder matrix = RttMatrix.newBuilder();
        RTT.forEach((site, peers) -> {
            RttRow.Builder row = RttRow.newBuilder().setSite(site).setMeasuredEpochMillis(at.toEpochMilli());
            peers.forEach((peer, micros) -> row.addPeers(PeerRtt.newBuilder().setPeer(peer).setRttMicros(micros)));
            matrix.addRows(row);
        });
        history.add(matrix.build());
        return history;
    }
}
