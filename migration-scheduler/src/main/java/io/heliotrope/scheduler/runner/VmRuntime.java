package io.heliotrope.scheduler.runner;

import java.nio.file.Path;

/**
 * A VM as its site runs it.
 *
 * @param state QEMU's run state (running, paused, inmigrate, postmigrate, ...), or {@link #EXITED}
 * @param exitReason why it exited, when it did; else ""
 * @param migrationPort the index of the migration port it listens on (incoming), else -1
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
        int migrationPort) {
    public static final String EXITED = "exited";
}
