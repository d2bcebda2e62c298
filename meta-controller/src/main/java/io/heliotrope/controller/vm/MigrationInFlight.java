package io.heliotrope.controller.vm;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.time.Duration;

import static java.util.Objects.requireNonNullElse;

/**
 * A migration under way, as its driver last reported it: where from and to, its phase
 * ({@code preparing}, {@code precopy}, {@code switchover}, {@code rolling-back}), when it
 * started, when the controller received the report, the RAM left to send of the total, the
 * storage bytes the source still has to push, who asked for it and, for a member of
 * migrations switched over together, the ensemble's id.
 */
public record MigrationInFlight(String id, String fromSite, String toSite, String phase, long startedEpochMillis, long reportedEpochMillis,
        long ramTotal, long ramRemaining, long storageBacklogBytes, String requestedBy, String ensembleId) {
    /** The driver reports at least once a second while it runs: a report older than this is from a driver that died. */
    public static final Duration STALE_AFTER = Duration.ofSeconds(60);

    public MigrationInFlight {
        id = requireNonNullElse(id, "");
        fromSite = requireNonNullElse(fromSite, "");
        toSite = requireNonNullElse(toSite, "");
        phase = requireNonNullElse(phase, "");
        requestedBy = requireNonNullElse(requestedBy, "");
        ensembleId = requireNonNullElse(ensembleId, "");
        if (id.isEmpty()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "a migration in flight needs an id");
        }
    }

    /** As received by the controller at {@code now}. */
    public MigrationInFlight reportedAt(long now) {
        return new MigrationInFlight(id, fromSite, toSite, phase, startedEpochMillis, now, ramTotal, ramRemaining, storageBacklogBytes,
                requestedBy, ensembleId);
    }

    /** Whether no report came for longer than {@link #STALE_AFTER} by {@code now}. */
    public boolean staleAt(long now) {
        return now - reportedEpochMillis > STALE_AFTER.toMillis();
    }
}
