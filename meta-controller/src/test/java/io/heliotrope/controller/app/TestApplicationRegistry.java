package io.heliotrope.controller.app;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.metrics.ControllerMetrics;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.PlanScore;
import io.heliotrope.scheduler.decision.ApplicationStore.StoredReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(ZooKeeperExtension.class)
class TestApplicationRegistry {
    private static final Instant T0 = Instant.ofEpochMilli(1_700_000_000_000L);

    private final TestingClock clock = new TestingClock(T0.toEpochMilli());
    private final ControllerMetrics metrics = new ControllerMetrics();
    private ZooKeeperStore zk;
    private ApplicationRegistry registry;

    @BeforeEach
    void start(EmbeddedZooKeeper server) {
        zk = ZooKeeperStore.connect(server.connectString(), Duration.ofSeconds(10), metrics.zooKeeper());
        registry = new ApplicationRegistry(zk, new ZooKeeperLayout(TestingController.newRoot()), clock);
    }

    @AfterEach
    void stop() {
        zk.close();
        metrics.close();
    }

    @Test
    void anApplicationIsStoredWithItsVmsSortedAndReadBack() {
        Application created = registry.create(ensemble("zk").toBuilder().addDecisions(decision(1, "ignored")).build());

        assertThat(created).isEqualTo(ensemble("zk").toBuilder().clearVms().addAllVms(List.of("zk1", "zk2", "zk3"))
                .setCreatedEpochMillis(T0.toEpochMilli()).build());
        assertThat(registry.get("zk")).isEqualTo(created);
        registry.create(Application.newBuilder().setName("web").setPolicy("single-vm").addVms("web1").build());
        registry.create(Application.newBuilder().setName("cache").setPolicy("single-vm").addVms("c1").build());
        assertThat(registry.list()).extracting(Application::getName).containsExactly("cache", "web", "zk");
    }

    @Test
    void namesAreCheckedAndMustBeFreeToCreateAndKnownOtherwise() {
        registry.create(ensemble("zk"));
        assertRefused(() -> registry.create(ensemble("zk")), ErrorCode.APPLICATION_EXISTS, "application 'zk' already exists");
        assertRefused(() -> registry.create(ensemble("ZK")), ErrorCode.INVALID_ARGUMENT,
                "invalid application name 'ZK': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        String missing = "application 'db' does not exist";
        assertRefused(() -> registry.get("db"), ErrorCode.APPLICATION_NOT_FOUND, missing);
        assertRefused(() -> registry.delete("db"), ErrorCode.APPLICATION_NOT_FOUND, missing);
        assertRefused(() -> registry.record("db", decision(1, "r")), ErrorCode.APPLICATION_NOT_FOUND, missing);
        assertRefused(() -> registry.addReport("db", T0, "{}", T0), ErrorCode.APPLICATION_NOT_FOUND, missing);
        assertRefused(() -> registry.reports("db", T0), ErrorCode.APPLICATION_NOT_FOUND, missing);
    }

    @Test
    void reportsComeBackOldestFirstAndThoseBeforeTheWindowAreDropped() {
        registry.create(ensemble("zk"));
        registry.addReport("zk", T0.plusSeconds(1), "{\"n\":1}", T0);
        registry.addReport("zk", T0.plusSeconds(1), "{\"n\":2}", T0);
        registry.addReport("zk", T0.plusSeconds(3), "{\"n\":3}", T0);

        assertThat(registry.reports("zk", T0)).containsExactly(new StoredReport(T0.plusSeconds(1), "{\"n\":1}"),
                new StoredReport(T0.plusSeconds(1), "{\"n\":2}"), new StoredReport(T0.plusSeconds(3), "{\"n\":3}"));
        assertThat(registry.reports("zk", T0.plusSeconds(2))).extracting(StoredReport::json).containsExactly("{\"n\":3}");

        assertThat(registry.addReport("zk", T0.plusSeconds(4), "{\"n\":4}", T0.plusSeconds(3))).as("reports kept").isEqualTo(2);
        assertThat(registry.reports("zk", T0)).extracting(StoredReport::json).as("the two before the window are gone")
                .containsExactly("{\"n\":3}", "{\"n\":4}");
    }

    @Test
    void aReportIsAtMost64KiBAndAtMostAThousandAreKept() {
        registry.create(ensemble("zk"));
        String largest = "\"" + "x".repeat(ApplicationRegistry.MAX_REPORT_BYTES - 2) + "\"";
        registry.addReport("zk", T0, largest, T0);
        assertRefused(() -> registry.addReport("zk", T0, largest + " ", T0), ErrorCode.INVALID_ARGUMENT,
                "the workload report for application 'zk' takes 65537 bytes, at most 65536 are allowed");

        for (int i = 1; i <= ApplicationRegistry.MAX_REPORTS; i++) {
            registry.addReport("zk", T0.plusMillis(i), Integer.toString(i), T0);
        }
        List<StoredReport> reports = registry.reports("zk", T0);
        assertThat(reports).hasSize(ApplicationRegistry.MAX_REPORTS);
        assertThat(reports.get(0).json()).as("the largest, oldest, was dropped").isEqualTo("1");
    }

    @Test
    void deletingAnApplicationDeletesItsReports() {
        registry.create(ensemble("zk"));
        registry.addReport("zk", T0, "{}", T0);
        registry.delete("zk");

        assertRefused(() -> registry.get("zk"), ErrorCode.APPLICATION_NOT_FOUND, "application 'zk' does not exist");
        registry.create(ensemble("zk"));
        assertThat(registry.reports("zk", T0)).isEmpty();
    }

    @Test
    void repeatsOfOneDecisionAreFoldedIntoOne() {
        registry.create(ensemble("zk"));
        registry.record("zk", decision(1_000, "nothing clears the threshold"));
        registry.record("zk", decision(2_000, "nothing clears the threshold").toBuilder()
                .setCurrent(plan(-90, "virginia", "virginia", "virginia")).build());
        registry.record("zk", decision(3_000, "nothing clears the threshold"));

        List<Decision> decisions = registry.get("zk").getDecisionsList();
        assertThat(decisions).hasSize(1);
        assertThat(decisions.get(0).getAtEpochMillis()).isEqualTo(1_000);
        assertThat(decisions.get(0).getLastEpochMillis()).isEqualTo(3_000);
        assertThat(decisions.get(0).getRepeats()).isEqualTo(3);
        assertThat(decisions.get(0).getCurrent().getScore()).as("the newest scores").isEqualTo(-100);
    }

    @Test
    void anotherReasonOrPlanIsANewDecisionAndTheNewestFiftyAreKept() {
        registry.create(ensemble("zk"));
        registry.record("zk", decision(1_000, "a"));
        registry.record("zk", decision(2_000, "b"));
        registry.record("zk", decision(3_000, "b").toBuilder().setBest(plan(-50, "taiwan", "taiwan", "taiwan")).build());
        registry.record("zk", decision(4_000, "b").toBuilder().setOutcome(DecisionOutcome.DECISION_OUTCOME_WAIT).build());

        assertThat(registry.get("zk").getDecisionsList()).extracting(Decision::getAtEpochMillis).containsExactly(1_000L, 2_000L, 3_000L, 4_000L);
        assertThat(registry.get("zk").getDecisionsList()).extracting(Decision::getRepeats).containsOnly(1);

        IntStream.range(0, 60).forEach(i -> registry.record("zk", decision(10_000 + i, "round " + i)));
        List<Decision> decisions = registry.get("zk").getDecisionsList();
        assertThat(decisions).hasSize(ApplicationRegistry.MAX_DECISIONS);
        assertThat(decisions.get(0).getReason()).isEqualTo("round 10");
        assertThat(decisions.get(49).getReason()).isEqualTo("round 59");
    }

    @Test
    void longDecisionsAreDroppedOldestFirstToFitInTheZnode() {
        registry.create(ensemble("zk"));
        String long100KiB = "x".repeat(100 << 10);
        IntStream.range(0, 12).forEach(i -> registry.record("zk", decision(i, i + long100KiB)));

        List<Decision> decisions = registry.get("zk").getDecisionsList();
        assertThat(decisions.size()).isBetween(2, 9);
        assertThat(decisions.get(decisions.size() - 1).getReason()).startsWith("11x");
    }

    @Test
    void decisionsRecordedAtOnceAreAllKept() {
        registry.create(ensemble("zk"));
        ExecutorService threads = Executors.newFixedThreadPool(4, task -> new Thread(task, "test-recorder"));
        try {
            List<CompletableFuture<Void>> writers = IntStream.range(0, 4)
                    .mapToObj(writer -> CompletableFuture.runAsync(() -> IntStream.range(0, 5)
                            .forEach(i -> registry.record("zk", decision(1_000 * writer + i, "writer " + writer + " round " + i))), threads))
                    .toList();
            writers.forEach(CompletableFuture::join);
        } finally {
            threads.shutdownNow();
        }

        assertThat(registry.get("zk").getDecisionsList()).hasSize(20);
    }

    private static Application ensemble(String name) {
        return Application.newBuilder().setName(name).setPolicy("ensemble").addAllVms(List.of("zk3", "zk1", "zk2")).setLeader("zk1")
                .setThresholdFraction(0.1).putParameters("alpha", "2").build();
    }

    private static Decision decision(long at, String reason) {
        return Decision.newBuilder().setAtEpochMillis(at).setOutcome(DecisionOutcome.DECISION_OUTCOME_STAY).setReason(reason).setPolicy("ensemble")
                .setCurrent(plan(-100, "virginia", "virginia", "virginia")).setBest(plan(-100, "virginia", "virginia", "virginia")).build();
    }

    private static PlanScore plan(double score, String... sites) {
        return PlanScore.newBuilder().addAllSites(List.of(sites)).setScore(score).build();
    }
}
