package io.heliotrope.controller.vm;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * A VM as the controller keeps it: its definition, the site it runs at (or last ran at),
 * when it was created, a version (what {@code MoveVm} compares), its newest
 * {@value #MAX_MIGRATIONS} migrations, oldest first, and the migration in flight (null when
 * none). Every change bumps the version but a report of the migration in flight: the driver
 * reads the version, reports progress while the migration runs, then moves the VM with the
 * version it read, which a report must not make stale.
 */
public record Vm(VmSpec spec, String site, long createdEpochMillis, long version, List<MigrationRecord> migrations, MigrationInFlight inFlight) {
    public static final int MAX_MIGRATIONS = 50;

    public Vm {
        requireNonNull(spec, "spec is null");
        requireNonNull(site, "site is null");
        migrations = List.copyOf(requireNonNullElse(migrations, List.of()));
    }

    public String name() {
        return spec.name();
    }

    public Vm movedTo(String site) {
        return new Vm(spec, site, createdEpochMillis, version + 1, migrations, inFlight);
    }

    /**
     * With {@code record} the newest of its migrations, the oldest dropped beyond
     * {@value #MAX_MIGRATIONS}, and no migration in flight.
     */
    public Vm withMigration(MigrationRecord record) {
        List<MigrationRecord> kept = new ArrayList<>(migrations);
        kept.add(requireNonNull(record, "record is null"));
        return new Vm(spec, site, createdEpochMillis, version + 1, kept.subList(Math.max(0, kept.size() - MAX_MIGRATIONS), kept.size()), null);
    }

    /** With {@code inFlight} (null: none) as its migration in flight, at the same version. */
    public Vm withInFlight(MigrationInFlight inFlight) {
        return new Vm(spec, site, createdEpochMillis, version, migrations, inFlight);
    }

    /** Whether a migration of this id (not empty) is in its history already. */
    public boolean recorded(String migrationId) {
        return !migrationId.isEmpty() && migrations.stream().anyMatch(record -> record.id().equals(migrationId));
    }
}
