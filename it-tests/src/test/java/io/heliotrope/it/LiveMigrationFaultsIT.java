package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.wan.WanLink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The four fault points of a live migration (DESIGN.md section 4), each through the 75 ms WAN
 * with the records guest: whatever fails, the guest runs at one site with one writer, the
 * disk's lease is where it runs with nothing prepared or handed, it keeps writing, it never
 * saw an I/O error, and every record it acknowledged is on its disk, read at either site.
 */
class LiveMigrationFaultsIT {
    private static final Duration EVENT_TIMEOUT = Duration.ofSeconds(120);
    /** How long the controller stays unreachable: past the handoff's 5 s deadline, healed within 8 s. */
    private static final Duration PARTITION = Duration.ofSeconds(6);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    @Test
    void aDestinationKilledDuringPreCopyRollsBack(@TempDir Path scratch) throws Exception {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "precopy")) {
            guest.awaitRecordsPast(3);
            CompletableFuture<Void> killed = guest.event("virginia", "MIGRATION", "active").thenRun(() -> guest.killQemu("taiwan"));

            MigrationRecord record = guest.migrate("taiwan");

            assertThat(killed).as(guest.report(record)).isDone();
            assertThat(record.getOutcome()).as(guest.report(record)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
            assertRunsAt(guest, "virginia", record);
            assertKeepsEveryRecord(guest, scratch);
        }
    }

    /**
     * Taiwan hands over with the controller cut off: its final flush is held on the link, the
     * handover misses its deadline, taiwan's runner cancels, and the driver rolls back; taiwan
     * holds the guest's I/O until it reclaims the lease after the link heals.
     */
    @Test
    void theControllerUnreachableAtPreSwitchoverHoldsTheGuestsIoUntilTheRollback(@TempDir Path scratch) throws Exception {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "unreachable")) {
            WanLink toController = guest.sites().link("taiwan", "controller");
            CompletableFuture<MigrationRecord> back = backFromTaiwan(guest, () -> toController.setBlackhole(true));
            // The partition's length is the fault itself, not a wait for some state.
            Thread.sleep(PARTITION.toMillis());
            assertThat(back).as("taiwan reclaims the lease through the controller: the rollback waits for the heal").isNotDone();
            toController.setBlackhole(false);
            MigrationRecord record = back.get(EVENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            assertThat(record.getOutcome()).as(guest.report(record)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
            assertThat(record.getReason()).as(guest.report(record)).contains("the handoff at pre-switchover failed");
            assertRunsAt(guest, "taiwan", record);
            assertKeepsEveryRecord(guest, scratch);
        }
    }

    /**
     * Taiwan's final flush moves the lease, but its reply never comes back (the connection
     * breaks while the reply is held): taiwan settles the handover by reading the lease, well
     * within the deadline, and the migration completes.
     */
    @Test
    void aMovedLeaseWhoseReplyIsDroppedIsSettledByReadingTheLease(@TempDir Path scratch) throws Exception {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "dropped")) {
            WanLink toController = guest.sites().link("taiwan", "controller");
            CompletableFuture<MigrationRecord> back = backFromTaiwan(guest, () -> toController.setBackwardHold(true));
            awaitFinalFlush(guest, toController);
            toController.dropConnections();
            toController.setBackwardHold(false);
            MigrationRecord record = back.get(EVENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            assertThat(record.getOutcome()).as(guest.report(record)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
            assertThat(guest.sites().site("taiwan").logFile()).as("taiwan's log").contains("as the lease shows after a lost reply");
            assertRunsAt(guest, "virginia", record);
            assertKeepsEveryRecord(guest, scratch);
        }
    }

    /**
     * Virginia hands the lease to taiwan, but its Activate is held on the link, and so is the
     * controller's answer to taiwan's await of the lease, so taiwan's runner cannot resume the
     * guest on {@code completed}; the destination is killed there and the links heal at once,
     * so the late Activate and the late answer race the rollback. The lease goes back to
     * virginia, whose paused source is resumed.
     */
    @Test
    void aDestinationKilledOnCompletedBeforeItResumesRollsBack(@TempDir Path scratch) throws Exception {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "completed")) {
            guest.awaitRecordsPast(3);
            WanLink peer = guest.sites().link("virginia", "taiwan");
            WanLink toController = guest.sites().link("taiwan", "controller");
            CompletableFuture<Void> cut = guest.event("virginia", "MIGRATION", "pre-switchover").thenRun(() -> {
                peer.setBlackhole(true);
                toController.setBackwardHold(true);
            });
            CompletableFuture<Void> killed = guest.event("taiwan", "MIGRATION", "completed").thenRun(() -> {
                guest.killQemu("taiwan");
                peer.setBlackhole(false);
                toController.setBackwardHold(false);
            });

            MigrationRecord record = guest.migrate("taiwan");

            assertThat(cut).as(guest.report(record)).isDone();
            assertThat(killed).as(guest.report(record)).isDone();
            assertThat(record.getOutcome()).as(guest.report(record)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK);
            assertRunsAt(guest, "virginia", record);
            assertKeepsEveryRecord(guest, scratch);
        }
    }

    /** Moves the guest to taiwan, then starts its move back with {@code fault} done at taiwan's pre-switchover; returns once it is done. */
    private static CompletableFuture<MigrationRecord> backFromTaiwan(MigratingGuest guest, Runnable fault) throws InterruptedException, ExecutionException {
        guest.awaitRecordsPast(3);
        MigrationRecord there = guest.migrate("taiwan");
        assertThat(there.getOutcome()).as(guest.report(there)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
        guest.awaitRecordsPast(guest.lastRecord() + 2);
        CompletableFuture<Void> injected = guest.event("taiwan", "MIGRATION", "pre-switchover").thenRun(fault);

        CompletableFuture<MigrationRecord> back = guest.migrateAsync("virginia");
        await(injected, back, guest);
        return back;
    }

    /**
     * Waits until taiwan's final flush moved the lease, its reply held. A reply held ahead of
     * it (a checkpoint's or a renewal's, under way at pre-switchover) keeps it from being sent:
     * when the lease has not moved within a second, the held replies go through, and the
     * replies are held again before the final flush can be answered (one round trip later).
     */
    private static void awaitFinalFlush(MigratingGuest guest, WanLink toController) {
        for (int letThrough = 0; !Await.within(Duration.ofSeconds(1), () -> guest.lease().getHolder().equals("virginia")); letThrough++) {
            assertThat(letThrough).as("times the held replies were let through before the final flush").isLessThan(3);
            long before = toController.backwardBytes();
            toController.setBackwardHold(false);
            Await.until("the held replies delivered", EVENT_TIMEOUT, () -> toController.backwardBytes() > before);
            toController.setBackwardHold(true);
        }
    }

    /** Waits for the fault to be injected, failing at once with the migration's result when it ended first. */
    private static void await(CompletableFuture<Void> fault, CompletableFuture<MigrationRecord> migration, MigratingGuest guest)
            throws InterruptedException, ExecutionException {
        try {
            CompletableFuture.anyOf(fault, migration).get(EVENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no fault injected within " + EVENT_TIMEOUT + "\n" + guest.sites().logs(), e);
        }
        assertThat(fault).as(migration.isDone() ? guest.report(migration.join()) : "the fault").isDone();
    }

    /** The guest runs at {@code site}, which holds the disk's lease, with no handoff prepared or open. */
    private static void assertRunsAt(MigratingGuest guest, String site, MigrationRecord record) {
        assertThat(guest.site()).as(guest.report(record)).isEqualTo(site);
        Lease lease = guest.lease();
        assertThat(lease.getHolder()).as("%s", lease).isEqualTo(site);
        assertThat(lease.getMovingTo()).as("%s", lease).isEmpty();
        assertThat(lease.getHandedFrom()).as("%s", lease).isEmpty();
    }

    /** It writes on, never saw an I/O error, and every record it acknowledged is on its disk at both sites. */
    private static void assertKeepsEveryRecord(MigratingGuest guest, Path scratch) {
        guest.awaitRecordsPast(guest.lastRecord() + 3);
        long last = guest.stop();
        guest.assertNoRecordFailed();
        guest.verifyRecords(last, "virginia", scratch.resolve("virginia"));
        guest.verifyRecords(last, "taiwan", scratch.resolve("taiwan"));
    }
}
