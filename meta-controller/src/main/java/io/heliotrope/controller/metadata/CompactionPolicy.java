package io.heliotrope.controller.metadata;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * When the log is folded into a snapshot: more than {@code maxLogRecords} records, or
 * more log bytes than snapshot bytes once the log holds at least {@code minLogBytes}.
 * Staged chunks nobody committed are removed once older than {@code stagingGrace}.
 */
public record CompactionPolicy(int maxLogRecords, long minLogBytes, Duration stagingGrace) {
    public static final CompactionPolicy DEFAULT = new CompactionPolicy(64, 1 << 20, Duration.ofMinutes(10));

    public CompactionPolicy {
        requireNonNull(stagingGrace, "stagingGrace is null");
    }

    public boolean due(MetaState meta) {
        return meta.logRecords() > maxLogRecords || (meta.logBytes() >= minLogBytes && meta.logBytes() > meta.snapshotBytes());
    }
}
