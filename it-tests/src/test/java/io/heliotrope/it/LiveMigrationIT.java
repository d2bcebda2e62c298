package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running guest moved between two sites 75 ms apart by {@code helio vm migrate} (DESIGN.md
 * section 4): it keeps writing numbered records through every move, each record it
 * acknowledged is on its disk afterwards, read at either site, and the disk's write lease
 * is where the guest runs, at a larger epoch, with nothing left prepared.
 */
class LiveMigrationIT {
    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    @Test
    void aGuestMovedToTaiwanAndBackKeepsEveryAcknowledgedRecord(@TempDir Path scratch) {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "records")) {
            long epochAtStart = guest.lease().getEpoch();
            guest.awaitRecordsPast(3);

            MigrationRecord there = guest.migrate("taiwan");
            assertThat(there.getOutcome()).as(guest.report(there)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
            assertThat(there.getDowntimeMicros()).as("guest downtime").isPositive();
            guest.awaitRecordsPast(guest.lastRecord() + 3);
            assertThat(guest.lease().getHolder()).isEqualTo("taiwan");

            MigrationRecord back = guest.migrate("virginia");
            assertThat(back.getOutcome()).as(guest.report(back)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
            guest.awaitRecordsPast(guest.lastRecord() + 3);

            Lease lease = guest.lease();
            assertThat(lease.getHolder()).isEqualTo("virginia");
            assertThat(lease.getEpoch()).isGreaterThan(epochAtStart);
            assertThat(lease.getMovingTo()).isEmpty();
            assertThat(lease.getHandedFrom()).isEmpty();

            long last = guest.stop();
            guest.verifyRecords(last, "taiwan", scratch.resolve("taiwan"));
            guest.verifyRecords(last, "virginia", scratch.resolve("virginia"));
        }
    }

    /**
     * A sync image's first writes at the destination go to the source, whose session handed
     * the lease over but has not closed yet: it takes them (it refused them once, and the
     * guest saw EIO), so no record fails and every one is at both sites.
     */
    @Test
    void aGuestOnASyncImageWritesOnFromItsFirstRecordAtTheDestination(@TempDir Path scratch) {
        try (MigratingGuest guest = MigratingGuest.start(cluster, "synced", List.of("--mode", "sync", "--sync-copies", "1"))) {
            guest.awaitRecordsPast(3);

            MigrationRecord there = guest.migrate("taiwan");
            assertThat(there.getOutcome()).as(guest.report(there)).isEqualTo(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
            guest.awaitRecordsPast(guest.lastRecord() + 5);

            long last = guest.stop();
            guest.verifyRecords(last, "taiwan", scratch.resolve("taiwan"));
            guest.verifyRecords(last, "virginia", scratch.resolve("virginia"));
        }
    }
}
