package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** What a VM's migration history says about moving it again. */
final class VmHistory {
    /** A migration in flight is believed while its driver reported it this recently. */
    static final Duration IN_FLIGHT_FRESH = Duration.ofSeconds(60);

    private VmHistory() {}

    /** When the VM's last completed migration ended, if it ever moved. */
    static Optional<Instant> lastMove(Vm vm) {
        return last(vm, true).map(VmHistory::ended);
    }

    /** The VM's last migration that did not complete (rolled back, cancelled, failed), if any. */
    static Optional<MigrationRecord> lastFailure(Vm vm) {
        return last(vm, false);
    }

    static Instant ended(MigrationRecord record) {
        return Instant.ofEpochMilli(record.getStartedEpochMillis()).plusNanos(record.getTotalMicros() * 1_000);
    }

    /** Whether the controller shows a migration of the VM that its driver reported recently. */
    static boolean migrating(Vm vm, Instant now) {
        return vm.hasInFlight() && Duration.between(Instant.ofEpochMilli(vm.getInFlight().getReportedEpochMillis()), now).compareTo(IN_FLIGHT_FRESH) < 0;
    }

    private static Optional<MigrationRecord> last(Vm vm, boolean completed) {
        for (int i = vm.getMigrationsCount() - 1; i >= 0; i--) {
            MigrationRecord record = vm.getMigrations(i);
            if ((record.getOutcome() == MigrationOutcome.MIGRATION_OUTCOME_COMPLETED) == completed) {
                return Optional.of(record);
            }
        }
        return Optional.empty();
    }
}
