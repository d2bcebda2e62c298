package io.heliotrope.scheduler.runner;

import java.nio.file.Path;

/**
 * A VM as its site runs it.
 *
 * @param state QEMU's run state (running, paused, inmigrate, postmigrate, ...), or {@link #EXITED}
 * @param exitReason why it exited, when it did; else ""
 * @param migrationPort the index of the migration port it listens on (incoming), else -1
 * @param migrationStatus {@code query-migrate}'s status as last seen (from its MIGRATION events,
 *         or asked again on re-attaching); "none" when it never migrated or is not known
 */
public record VmRuntime(
        String name,
        String site,
        String state,
        long pid,
        String exitReason,
        Path stateDir,
        Path consoleLog,
        long startedEpochMillis,
        boolean incoming,
        int migrationPort,
        String migrationStatus) {
    public static final String EXITED = "exited";
    public static final String NO_MIGRATION = "none";
}
