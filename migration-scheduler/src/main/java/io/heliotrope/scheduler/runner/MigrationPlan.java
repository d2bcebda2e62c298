package io.heliotrope.scheduler.runner;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * A migration out of this site as StartMigration asked for it, kept in the VM's directory
 * ({@link VmFiles#migrationRecord()}) so that a runner that restarts mid-migration can arm
 * its source again.
 *
 * @param hold park at {@code pre-switchover} until HandOver and ContinueMigration
 */
public record MigrationPlan(String toSite, long handoverDeadlineMillis, boolean hold) {
    public MigrationPlan {
        requireNonNull(toSite, "toSite is null");
    }

    @JsonIgnore
    public Duration handoverDeadline() {
        return Duration.ofMillis(handoverDeadlineMillis);
    }

    void write(Path file) throws IOException {
        JsonFiles.write(file, this);
    }

    static MigrationPlan read(Path file) throws IOException {
        return JsonFiles.read(file, MigrationPlan.class);
    }
}
