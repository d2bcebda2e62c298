package io.heliotrope.scheduler.qmp;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code query-migrate}'s reply, the fields we read. Absent numbers are 0; {@code status} is
 * null before any migration.
 *
 * @param totalTime milliseconds since the migration started
 * @param downtime milliseconds, as QEMU measures it at the source
 * @param expectedDowntime milliseconds, QEMU's estimate while it runs
 */
public record MigrationInfo(
        String status,
        @JsonProperty("total-time") long totalTime,
        long downtime,
        @JsonProperty("expected-downtime") long expectedDowntime,
        Ram ram,
        @JsonProperty("error-desc") String errorDesc) {
    /** Before any migration. */
    public static final MigrationInfo NONE = new MigrationInfo(null, 0, 0, 0, null, null);

    public MigrationInfo {
        ram = ram == null ? new Ram(0, 0, 0, 0, 0) : ram;
    }

    /** @param mbps megabits per second over the last iteration */
    public record Ram(
            long total,
            long remaining,
            long transferred,
            double mbps,
            @JsonProperty("dirty-pages-rate") long dirtyPagesRate) {}
}
