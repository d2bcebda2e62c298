package io.heliotrope.scheduler.migration;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.DiskEpochs;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrationPhase;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import io.heliotrope.proto.scheduler.v1.OnTimeout;
import io.heliotrope.proto.storage.v1.HandoverState;
import io.heliotrope.proto.storage.v1.MigrationState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.scheduler.migration.TestingSiteCalls.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestMigrationDriver {
    private static final DriverConfig FAST = new DriverConfig(2, Duration.ofMillis(1), Duration.ofSeconds(10), Duration.ofSeconds(5),
            Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(300), Duration.ofMillis(1));

    private final TestingCluster cluster = new TestingCluster().vm("web", "virginia", "root", "data");
    private final TestingSiteCalls virginia = new TestingSiteCalls("virginia");
    private final TestingSiteCalls taiwan = new TestingSiteCalls("taiwan");
    private final MigrationDriver driver = new MigrationDriver(FAST, cluster, Map.of("virginia", virginia, "taiwan", taiwan)::get);

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void completesWhenTheDestinationResumes() throws Exception {
        virginia.then(status("active").toBuilder().setRamTotal(1000).setRamRemaining(400).setRamRate(100).build())
                .then(status("pre-switchover"))
                .then(status("completed").toBuilder().setStopMicros(1_000_000).setPreSwitchoverMicros(1_010_000).setDeviceMicros(1_022_000)
                        .setRamTransferred(123_456).build());
        taiwan.then(status("inmigrate")).then(MigrationState.newBuilder().setStatus("completed").setVmState("running").setResumeMicros(1_180_000).build());
        List<MigrationProgress> seen = new CopyOnWriteArrayList<>();

        Migration migration = driver.start(request());
        migration.watch(seen::add);
        MigrationRecord record = migration.result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
        assertThat(record.getDowntimeMicros()).isEqualTo(180_000);
        assertThat(record.getHandoffMicros()).isEqualTo(12_000);
        assertThat(record.getRamBytes()).isEqualTo(123_456);
        // Each disk read twice at each site: 4 KiB more pushed at the source, 8 KiB more fetched at the destination, between the reads.
        assertThat(record.getStoragePushedBytes()).isEqualTo(2 * 2 * 4096);
        assertThat(record.getStorageFetchedBytes()).isEqualTo(2 * 2 * 8192);
        assertThat(record.getEpochsList()).extracting(DiskEpochs::getImage, DiskEpochs::getEpochBefore, DiskEpochs::getEpochAfter)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("root", 5L, 6L), org.assertj.core.groups.Tuple.tuple("data", 5L, 6L));
        assertThat(taiwan.calls).containsExactly("standby root from virginia", "standby data from virginia", "startVm web incoming");
        assertThat(virginia.calls).containsExactly("startMigration web taiwan:2", "stopVm web", "endHold root", "endHold data");
        assertThat(cluster.calls).containsExactly("prepare root virginia->taiwan", "prepare data virginia->taiwan",
                "completeHandoff root", "completeHandoff data", "moveVm web taiwan");
        assertThat(cluster.vm("web").getSite()).isEqualTo("taiwan");
        assertThat(cluster.records).containsExactly(record);
        assertThat(seen.get(seen.size() - 1).getPhase()).isEqualTo(MigrationPhase.MIGRATION_PHASE_DONE);
        assertThat(seen).extracting(MigrationProgress::getPhase).contains(MigrationPhase.MIGRATION_PHASE_SWITCHOVER);
        assertThat(driver.inFlight("web")).isEmpty();
    }

    @Test
    void rollsBackWhenTheHandoverFails() throws Exception {
        virginia.then(status("active"))
                .then(status("pre-switchover").toBuilder().setHandover(HandoverState.HANDOVER_STATE_FAILED).setHandoverError("controller unreachable").build());
        taiwan.then(status("inmigrate"));

        MigrationRecord record = driver.start(request()).result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
        assertThat(record.getReason()).isEqualTo("the handoff at pre-switchover failed: controller unreachable");
        assertThat(taiwan.calls).endsWith("abortIncoming web", "abandon root", "abandon data");
        assertThat(virginia.calls).endsWith("cancelMigration web", "reclaim root", "reclaim data");
        assertThat(cluster.calls).endsWith("cancelHandoff root", "cancelHandoff data");
        assertThat(cluster.lease("root").getHolder()).isEqualTo("virginia");
        assertThat(cluster.vm("web").getSite()).isEqualTo("virginia");
        assertThat(record.getEpochsList()).extracting(DiskEpochs::getEpochAfter).containsExactly(6L, 6L);
    }

    @Test
    void aSourceThatIsSilentForAWhileDoesNotRollTheMigrationBack() throws Exception {
        virginia.then(status("active")).then(status("completed"));
        virginia.silentUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        taiwan.then(MigrationState.newBuilder().setStatus("completed").setVmState("running").setResumeMicros(1).build());

        MigrationRecord record = driver.start(request()).result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
    }

    @Test
    void aSourceThatRestartedParkedAtPreSwitchoverIsHandedOverAndContinued() throws Exception {
        virginia.then("web", status("active")).then("web", status("pre-switchover"));
        virginia.silentUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        taiwan.then(MigrationState.newBuilder().setStatus("completed").setVmState("running").setResumeMicros(1).build());

        MigrationRecord record = driver.start(request()).result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
        assertThat(virginia.calls).containsSubsequence("handOver web", "continueMigration web");
    }

    @Test
    void aSourceSilentForLongerThanItsPatienceRollsBack() throws Exception {
        virginia.then(status("active"));
        virginia.silentUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        taiwan.then(status("inmigrate"));

        MigrationRecord record = driver.start(request()).result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
        assertThat(record.getReason()).isEqualTo("lost the source: virginia is restarting");
    }

    @Test
    void aDestinationThatResumedCommitsTheMigration() throws Exception {
        virginia.then(status("failed").toBuilder().setError("lost the return path").build());
        taiwan.then(MigrationState.newBuilder().setStatus("completed").setVmState("running").setResumeMicros(2_000_000).build());
        taiwan.resumed = true;

        MigrationRecord record = driver.start(request()).result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
        assertThat(cluster.calls).doesNotContain("cancelHandoff root").contains("moveVm web taiwan");
    }

    @Test
    void aSourcePausedByTheMigrationIsResumedAfterTheRollback() throws Exception {
        virginia.then(status("active"));
        virginia.vmState = "paused";
        taiwan.then(status("inmigrate"));
        Migration migration = driver.start(request());

        migration.cancel("operator");
        MigrationRecord record = migration.result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_CANCELLED);
        assertThat(record.getReason()).isEqualTo("cancelled by operator");
        assertThat(virginia.calls).endsWith("continueVm web");
    }

    @Test
    void aDestinationThatCannotStartRollsBack() throws Exception {
        virginia.then(status("none"));
        taiwan.startFailure = new HeliotropeException(ErrorCode.TOOL_MISSING, "qemu-system-x86_64 is not installed");

        MigrationRecord record = driver.start(request()).result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
        assertThat(record.getReason()).isEqualTo("could not start: qemu-system-x86_64 is not installed");
        assertThat(virginia.calls).doesNotContain("cancelMigration web").contains("reclaim root");
    }

    @Test
    void oneMigrationOfAVmAtATime() {
        virginia.then(status("active"));
        taiwan.then(status("inmigrate"));
        driver.start(request());

        assertThatThrownBy(() -> driver.start(request()))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("VM 'web' is migrating to taiwan already");
        driver.cancel("web", "test");
    }

    @Test
    void aTimeoutCancelsPreCopyThatDoesNotConverge() throws Exception {
        virginia.then(status("active"));
        taiwan.then(status("inmigrate"));

        MigrationRecord record = driver.start(request().toBuilder().setTimeoutMillis(20).build()).result().get(10, TimeUnit.SECONDS);

        assertThat(record.getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_CANCELLED);
        assertThat(record.getReason()).isEqualTo("timed out after 0 s");
        assertThat(virginia.calls).doesNotContain("pauseVm web").contains("cancelMigration web", "reclaim root");
    }

    @Test
    void aForcedTimeoutPausesTheGuestSoThatPreCopyCompletes() throws Exception {
        virginia.then(status("active"));
        taiwan.then(status("inmigrate"));
        Migration migration = driver.start(request().toBuilder().setTimeoutMillis(20).setOnTimeout(OnTimeout.ON_TIMEOUT_FORCE).build());

        Await.until(() -> virginia.calls.contains("pauseVm web"));
        virginia.then(status("completed"));
        taiwan.then(MigrationState.newBuilder().setStatus("completed").setVmState("running").setResumeMicros(1).build());

        assertThat(migration.result().get(10, TimeUnit.SECONDS).getOutcome()).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
        assertThat(virginia.calls).containsOnlyOnce("pauseVm web");
    }

    @Test
    void atMostTwoMigrationsLeaveASiteAtOnce() {
        cluster.vm("db", "virginia", "db-root").vm("cache", "virginia", "cache-root");
        virginia.then(status("active"));
        taiwan.then(status("inmigrate"));
        driver.start(request());
        driver.start(MigrateRequest.newBuilder().setVm("db").setToSite("taiwan").build());

        assertThatThrownBy(() -> driver.start(MigrateRequest.newBuilder().setVm("cache").setToSite("taiwan").build()))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("site virginia has 2 migrations out already (at most 2); try again when one has ended");
        driver.cancel("web", "test");
        driver.cancel("db", "test");
    }

    @Test
    void aVmCannotMoveToItsOwnSite() {
        assertThatThrownBy(() -> driver.start(MigrateRequest.newBuilder().setVm("web").setToSite("virginia").build()))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("VM 'web' runs at virginia already");
    }

    private static MigrateRequest request() {
        return MigrateRequest.newBuilder().setVm("web").setToSite("taiwan").build();
    }
}
