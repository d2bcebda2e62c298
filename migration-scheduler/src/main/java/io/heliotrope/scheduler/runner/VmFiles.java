package io.heliotrope.scheduler.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/** The files of one VM in the runner's state directory: {@code <stateDir>/vms/<name>/}. */
public record VmFiles(Path dir) {
    private static final int LOG_LINES = 3;

    public static VmFiles of(Path stateDir, String name) {
        return new VmFiles(stateDir.resolve("vms").resolve(name));
    }

    public Path pidfile() {
        return dir.resolve("qemu.pid");
    }

    public Path qmpSocket() {
        return dir.resolve("qmp.sock");
    }

    public Path consoleSocket() {
        return dir.resolve("console.sock");
    }

    public Path consoleLog() {
        return dir.resolve("console.log");
    }

    /** QEMU's stderr and {@code -D} log. */
    public Path qemuLog() {
        return dir.resolve("qemu.log");
    }

    /** What the VM was started as ({@link LaunchRecord}), read back when the runner re-attaches. */
    public Path launchRecord() {
        return dir.resolve("launch.json");
    }

    /** The migration out of here that StartMigration began last ({@link MigrationPlan}). */
    public Path migrationRecord() {
        return dir.resolve("migration.json");
    }

    public OptionalLong pid() {
        try {
            return OptionalLong.of(Long.parseLong(Files.readString(pidfile(), StandardCharsets.US_ASCII).strip()));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** The last few lines of QEMU's log, joined by "; " ("" when it is empty or missing). */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(qemuLog(), StandardCharsets.UTF_8).stream().filter(line -> !line.isBlank()).toList();
            return String.join("; ", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }
}
