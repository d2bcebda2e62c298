package io.heliotrope.scheduler.migration;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrateTogetherRequest;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import io.heliotrope.proto.storage.v1.MigrationState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.scheduler.migration.TestingSiteCalls.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestEnsembleMigration {
    private static final DriverConfig FAST = new DriverConfig(2, Duration.ofMillis(1), Duration.ofSeconds(10), Duration.ofSeconds(5),
            Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(300), Duration.ofMillis(1));
    private static final List<String> MEMBERS = List.of("a", "b", "c");

    private final TestingCluster cluster = new TestingCluster().vm("a", "virginia", "a-root").vm("b", "virginia", "b-root").vm("c", "virginia", "c-root");
    private final TestingSiteCalls virginia = new TestingSiteCalls("virginia");
    private final TestingSiteCalls taiwan = new TestingSiteCalls("taiwan");
    private final MigrationDriver driver = new MigrationDriver(FAST, cluster, Map.of("virginia", virginia, "taiwan", taiwan)::get);

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void everyMemberParksThenEveryLeaseMovesThenEveryMemberContinues() throws Exception {
        for (String vm : MEMBERS) {
            virginia.then(vm, status("active")).then(vm, status("pre-switchover"));
            taiwan.then(vm, MigrationState.newBuilder().setStatus("completed").setVmState("running").setResumeMicros(2).build());
        }

        List<Migration> members = driver.startTogether(together());
        // What the driver's stream sends when the last member ends: every member's progress, with its result.
        CompletableFuture<List<MigrationProgress>> atTheEnd = CompletableFuture.allOf(members.stream().map(Migration::result).toArray(CompletableFuture[]::new))
                .thenApply(ignored -> members.stream().map(Migration::progress).toList());
        List<MigrationRecord> records = results(members);

        assertThat(atTheEnd.get(10, TimeUnit.SECONDS)).extracting(MigrationProgress::getResult).isEqualTo(records);
        assertThat(records).extracting(MigrationRecord::getOutcome).containsOnly(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
        assertThat(records).extracting(MigrationRecord::getEnsembleId).containsOnly(records.get(0).getEnsembleId()).doesNotContain("");
        int lastHandOver = 0;
        int firstContinue = Integer.MAX_VALUE;
        for (int i = 0; i < virginia.calls.size(); i++) {
            String call = virginia.calls.get(i);
            lastHandOver = call.startsWith("handOver") ? i : lastHandOver;
            firstContinue = call.startsWith("continueMigration") ? Math.min(firstContinue, i) : firstContinue;
        }
        assertThat(virginia.calls).as("handed over, then continued").contains("handOver a", "handOver b", "handOver c",
                "continueMigration a", "continueMigration b", "continueMigration c");
        assertThat(lastHandOver).as("the last hand-over before the first continue: %s", virginia.calls).isLessThan(firstContinue);
        for (String vm : MEMBERS) {
            assertThat(cluster.vm(vm).getSite()).isEqualTo("taiwan");
        }
    }

    @Test
    void aMemberThatFailsMakesEveryMemberCancelAndKeepRunningAtItsSource() throws Exception {
        virginia.then("a", status("active")).then("a", status("pre-switchover"));
        virginia.then("b", status("active")).then("b", status("failed").toBuilder().setError("the destination went away").build());
        virginia.then("c", status("active"));
        for (String vm : MEMBERS) {
            taiwan.then(vm, status("inmigrate"));
        }

        List<MigrationRecord> records = results(driver.startTogether(together()));

        assertThat(records.get(1).getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
        assertThat(records.get(1).getReason()).isEqualTo("QEMU's migration failed: the destination went away");
        for (MigrationRecord record : List.of(records.get(0), records.get(2))) {
            assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_CANCELLED);
            assertThat(record.getReason()).isEqualTo("b: QEMU's migration failed: the destination went away");
        }
        assertThat(virginia.calls).noneMatch(call -> call.startsWith("continueMigration"))
                .contains("reclaim a-root", "reclaim b-root", "reclaim c-root");
        for (String vm : MEMBERS) {
            assertThat(cluster.vm(vm).getSite()).isEqualTo("virginia");
            assertThat(cluster.lease(vm + "-root").getHolder()).isEqualTo("virginia");
        }
    }

    @Test
    void aMemberThatMissesTheBarrierMakesEveryMemberCancel() throws Exception {
        virginia.then("a", status("active")).then("a", status("pre-switchover"));
        virginia.then("b", status("active")).then("b", status("pre-switchover"));
        virginia.then("c", status("active"));
        for (String vm : MEMBERS) {
            taiwan.then(vm, status("inmigrate"));
        }

        List<MigrationRecord> records = results(driver.startTogether(together()));

        assertThat(records).extracting(MigrationRecord::getOutcome).containsOnly(MigrationOutcome.MIGRATION_OUTCOME_CANCELLED);
        assertThat(records.get(2).getReason()).startsWith("2 of 3 VMs reached pre-switchover within 300 ms of the first");
        assertThat(virginia.calls).noneMatch(call -> call.startsWith("handOver") || call.startsWith("continueMigration"))
                .contains("cancelMigration a", "cancelMigration b", "cancelMigration c");
    }

    @Test
    void cancellingOneMemberCancelsTheEnsemble() throws Exception {
        for (String vm : MEMBERS) {
            virginia.then(vm, status("active"));
            taiwan.then(vm, status("inmigrate"));
        }
        List<Migration> members = driver.startTogether(together());

        driver.cancel("b", "operator");

        List<MigrationRecord> records = results(members);
        assertThat(records).extracting(MigrationRecord::getOutcome).containsOnly(MigrationOutcome.MIGRATION_OUTCOME_CANCELLED);
        assertThat(records).extracting(MigrationRecord::getReason).containsOnly("cancelled by operator");
    }

    @Test
    void aFailureBeforeTheLastHandOverHoldsForEveryMemberTheLastToo() throws Exception {
        Ensemble ensemble = new Ensemble("e", List.of("a", "b"), Duration.ofSeconds(1));

        ensemble.fail("cancelled by operator");

        assertThat(ensemble.awaitHandedOver("a", Duration.ofSeconds(1))).isEqualTo("cancelled by operator");
        assertThat(ensemble.awaitHandedOver("b", Duration.ofSeconds(1))).as("the last to hand over").isEqualTo("cancelled by operator");
    }

    @Test
    void anEnsembleCountsAsOneMigrationOutOfItsSite() {
        cluster.vm("d", "virginia", "d-root").vm("e", "virginia", "e-root");
        for (String vm : List.of("a", "b", "c", "d", "e")) {
            virginia.then(vm, status("active"));
            taiwan.then(vm, status("inmigrate"));
        }
        driver.startTogether(together());
        driver.start(MigrateRequest.newBuilder().setVm("d").setToSite("taiwan").build());

        assertThatThrownBy(() -> driver.start(MigrateRequest.newBuilder().setVm("e").setToSite("taiwan").build()))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("site virginia has 2 migrations out already (at most 2); try again when one has ended");
        driver.cancel("a", "test");
        driver.cancel("d", "test");
    }

    @Test
    void anEnsembleThatCannotStartStartsNone() {
        virginia.then(status("active"));
        taiwan.then(status("inmigrate"));
        driver.start(MigrateRequest.newBuilder().setVm("c").setToSite("taiwan").build());

        assertThatThrownBy(() -> driver.startTogether(together()))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("VM 'c' is migrating to taiwan already");
        assertThat(driver.inFlight("a")).isEmpty();
        assertThat(cluster.reports).noneMatch(report -> report.startsWith("report a"));
        driver.cancel("c", "test");
    }

    @Test
    void theControllerHearsOfEachPhaseAndNothingAfterTheRecord() throws Exception {
        for (String vm : MEMBERS) {
            virginia.then(vm, status("active")).then(vm, status("pre-switchover"));
            taiwan.then(vm, MigrationState.newBuilder().setStatus("completed").setVmState("running").setResumeMicros(2).build());
        }

        results(driver.startTogether(together()));

        List<String> ofA = new ArrayList<>(cluster.reports.stream().filter(report -> report.contains(" a")).toList());
        assertThat(ofA).startsWith("report a preparing").contains("report a precopy", "report a switchover").endsWith("record a");
    }

    private static MigrateTogetherRequest together() {
        return MigrateTogetherRequest.newBuilder().addAllVms(MEMBERS).setToSite("taiwan").build();
    }

    private static List<MigrationRecord> results(List<Migration> members) throws Exception {
        List<MigrationRecord> records = new ArrayList<>();
        for (Migration member : members) {
            records.add(member.result().get(10, TimeUnit.SECONDS));
        }
        return records;
    }
}
