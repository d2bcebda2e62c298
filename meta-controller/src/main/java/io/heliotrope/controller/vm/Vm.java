package io.heliotrope.controller.vm;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * A VM as the controller keeps it: its definition, the site it runs at (or last ran at),
 * when it was created, a version that every change bumps (what {@code MoveVm} compares),
 * and its newest {@value #MAX_MIGRATIONS} migrations, oldest first.
 */
public record Vm(VmSpec spec, String site, long createdEpochMillis, long version, List<MigrationRecord> migrations) {
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
        return new Vm(spec, site, createdEpochMillis, version + 1, migrations);
    }

    /** With {@code record} the newest of its migrations, the oldest dropped beyond {@value #MAX_MIGRATIONS}. */
    public Vm withMigration(MigrationRecord record) {
        List<MigrationRecord> kept = new ArrayList<>(migrations);
        kept.add(requireNonNull(record, "record is null"));
        return new Vm(spec, site, createdEpochMillis, version + 1, kept.subList(Math.max(0, kept.size() - MAX_MIGRATIONS), kept.size()));
    }
}
