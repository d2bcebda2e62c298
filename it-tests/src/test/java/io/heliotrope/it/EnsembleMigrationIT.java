package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.scheduler.v1.EnsembleProgress;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three guests moved from virginia to taiwan by {@code helio vm migrate a b c --together}
 * (DESIGN.md section 4, ensembles): no source continues before every member parked at
 * {@code pre-switchover}, and a member that fails before the barrier makes all three keep
 * running at virginia. Every guest keeps every record it acknowledged.
 */
class EnsembleMigrationIT {
    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    @Test
    void threeGuestsSwitchOverTogetherAndKeepEveryRecord(@TempDir Path scratch) {
        try (WanSites sites = MigratingGuest.sites(cluster); Guests guests = Guests.start(sites, "ens-a", "ens-b", "ens-c")) {
            guests.awaitRecords();

            EnsembleProgress result = MigratingGuest.migrateTogether(guests.all(), "taiwan");

            List<MigrationRecord> records = result.getMembersList().stream().map(MigrationProgress::getResult).toList();
            String report = result + "\n" + sites.logs();
            assertThat(records).as(report).extracting(MigrationRecord::getOutcome).containsOnly(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
            assertThat(records).extracting(MigrationRecord::getEnsembleId).containsOnly(result.getId());
            long lastPark = records.stream().mapToLong(MigrationRecord::getPreSwitchoverEpochMicros).max().orElseThrow();
            long firstDevice = records.stream().mapToLong(MigrationRecord::getDeviceEpochMicros).min().orElseThrow();
            assertThat(records).extracting(MigrationRecord::getPreSwitchoverEpochMicros).allMatch(micros -> micros > 0);
            assertThat(firstDevice).as("the first source's device event after every pre-switchover: %s", report).isGreaterThan(lastPark);
            long firstStop = records.stream().mapToLong(MigrationRecord::getStopEpochMicros).min().orElseThrow();
            long lastStop = records.stream().mapToLong(MigrationRecord::getStopEpochMicros).max().orElseThrow();
            assertThat(result.getStopSpreadMicros()).isEqualTo(lastStop - firstStop);
            for (MigratingGuest guest : guests.all()) {
                assertThat(guest.site()).isEqualTo("taiwan");
                assertThat(guest.lease().getHolder()).isEqualTo("taiwan");
            }
            guests.awaitRecords();
            guests.stopAndVerify("taiwan", scratch);
        }
    }

    @Test
    void aMemberWhoseDestinationDiesBeforeTheBarrierMakesAllThreeStayAtTheirSource(@TempDir Path scratch) throws Exception {
        try (WanSites sites = MigratingGuest.sites(cluster); Guests guests = Guests.start(sites, "stay-a", "stay-b", "stay-c")) {
            guests.awaitRecords();
            MigratingGuest victim = guests.all().get(1);
            CompletableFuture<Void> killed = victim.event("virginia", "MIGRATION", "active").thenRun(() -> victim.killQemu("taiwan"));

            EnsembleProgress result = MigratingGuest.migrateTogether(guests.all(), "taiwan");

            String report = result + "\n" + sites.logs();
            assertThat(killed).as(report).succeedsWithin(Duration.ofSeconds(5));
            List<MigrationRecord> records = result.getMembersList().stream().map(MigrationProgress::getResult).toList();
            assertThat(records.get(1).getOutcome()).as(report).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
            assertThat(List.of(records.get(0), records.get(2))).as(report).extracting(MigrationRecord::getOutcome)
                    .containsOnly(MigrationOutcome.MIGRATION_OUTCOME_CANCELLED);
            assertThat(records.get(0).getReason()).startsWith("stay-b: ");
            for (MigratingGuest guest : guests.all()) {
                assertThat(guest.site()).isEqualTo("virginia");
                assertThat(guest.lease().getHolder()).isEqualTo("virginia");
            }
            guests.awaitRecords();
            guests.stopAndVerify("virginia", scratch);
        }
    }

    @Test
    void theSchedulerMovesAnEnsembleWholeToTheRegionItsWritesComeFromTogether(@TempDir Path scratch) {
        try (WanSites sites = MigratingGuest.sites(cluster); Guests guests = Guests.start(sites, "zk-a", "zk-b", "zk-c")) {
            guests.awaitRecords();
            MigratingGuest leader = guests.all().get(0);
            leader.helio("app", "create", "zk", "--policy", "ensemble", "--vms", "zk-a,zk-b,zk-c", "--leader", "zk-a").assertSuccess();
            leader.helio("app", "report", "zk", "{\"frontEnds\":[{\"site\":\"taiwan\",\"reads\":900,\"writes\":100}]}").assertSuccess();
            // The sites measure each other every 10 s; until both have, the scheduler has no decision to take.
            Await.until("the scheduler is elected and both sites have measured the link", Duration.ofSeconds(60),
                    () -> leader.helio("scheduler", "explain", "zk").assertSuccess().stdout().contains(": move\n"));

            String run = leader.helio("scheduler", "run").assertSuccess().stdout();

            assertThat(run).containsPattern("(?m)^zk +move .* zk-a->taiwan,zk-b->taiwan,zk-c->taiwan ");
            Await.until("the three VMs run at taiwan", Duration.ofMinutes(3), () -> guests.all().stream().allMatch(guest -> guest.site().equals("taiwan")));
            List<MigrationRecord> records = guests.all().stream()
                    .map(guest -> VmServiceGrpc.newBlockingStub(cluster.controller(0).channel()).getVm(GetVmRequest.newBuilder().setName(guest.name()).build()).getMigrations(0))
                    .toList();
            assertThat(records).extracting(MigrationRecord::getRequestedBy).containsOnly("scheduler");
            assertThat(records).extracting(MigrationRecord::getEnsembleId).doesNotContain("").containsOnly(records.get(0).getEnsembleId());
            assertThat(leader.helio("app", "show", "zk").assertSuccess().stdout()).containsPattern("move zk-a->taiwan,zk-b->taiwan,zk-c->taiwan +the best plan");
            guests.awaitRecords();
            guests.stopAndVerify("taiwan", scratch);
        }
    }

    /** Guests on shared sites, stopped (killed) when closed. */
    private record Guests(List<MigratingGuest> all) implements AutoCloseable {
        static Guests start(WanSites sites, String... names) {
            Guests guests = new Guests(new ArrayList<>());
            try {
                for (String name : names) {
                    guests.all.add(MigratingGuest.startOn(cluster, sites, name));
                }
                return guests;
            } catch (RuntimeException | AssertionError e) {
                guests.close();
                throw e;
            }
        }

        /** Every guest acknowledges three more records than it had. */
        void awaitRecords() {
            for (MigratingGuest guest : all) {
                guest.awaitRecordsPast(guest.lastRecord() + 3);
            }
        }

        void stopAndVerify(String site, Path scratch) {
            for (MigratingGuest guest : all) {
                long last = guest.stop();
                guest.verifyRecords(last, site, scratch.resolve(guest.name()));
            }
        }

        @Override
        public void close() {
            try (Cleanup cleanup = new Cleanup()) {
                all.forEach(guest -> cleanup.add(guest::close));
            }
        }
    }
}
