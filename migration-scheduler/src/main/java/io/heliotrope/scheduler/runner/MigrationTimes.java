package io.heliotrope.scheduler.runner;

/** When this QEMU sent each event of a migration, in microseconds since the epoch (0: not seen). */
public record MigrationTimes(long stop, long preSwitchover, long device, long completed, long resume) {
    public static final MigrationTimes NONE = new MigrationTimes(0, 0, 0, 0, 0);
}
