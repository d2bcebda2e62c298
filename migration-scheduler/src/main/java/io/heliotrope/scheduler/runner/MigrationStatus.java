package io.heliotrope.scheduler.runner;

/**
 * A VM's migration as its site sees it: {@code query-migrate}, the handover's state and the
 * times of the events seen at this QEMU since the migration began (microseconds since the
 * epoch; 0 when not seen).
 *
 * @param status none, setup, active, pre-switchover, device, completed, failed, cancelling, cancelled
 * @param ramRate bytes per second over QEMU's last iteration
 * @param totalTimeMillis QEMU's {@code total-time}
 * @param downtimeMillis QEMU's {@code downtime} (measured at the source, including time parked at pre-switchover)
 * @param error QEMU's error, or why the destination was not resumed; else ""
 * @param vmState QEMU's run state
 */
public record MigrationStatus(
        String status,
        long ramTotal,
        long ramRemaining,
        long ramTransferred,
        double ramRate,
        long expectedDowntimeMillis,
        long dirtyPagesRate,
        long totalTimeMillis,
        long downtimeMillis,
        HandoverState handover,
        String handoverError,
        MigrationTimes times,
        String error,
        String vmState) {}
