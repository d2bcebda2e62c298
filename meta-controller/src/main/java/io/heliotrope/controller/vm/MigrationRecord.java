package io.heliotrope.controller.vm;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.List;

import static java.util.Objects.requireNonNullElse;

/**
 * One migration's result, kept with its VM: who asked, where from and to, how it ended and
 * why, total time, guest downtime (source STOP to destination RESUME) and handoff time
 * (source pre-switchover to source device), in microseconds; RAM bytes sent, storage bytes
 * pushed before the switchover and fetched after it; each disk's lease epochs; for a member of
 * migrations switched over together, the ensemble's id (the same for every member); and the
 * QMP event times, in microseconds since the epoch by the clock of the host that saw them
 * (0: not seen): the source's STOP, pre-switchover and device, the destination's RESUME.
 */
public record MigrationRecord(String id, String fromSite, String toSite, MigrationOutcome outcome, String reason, String requestedBy,
        long startedEpochMillis, long totalMicros, long downtimeMicros, long handoffMicros, long ramBytes, long storagePushedBytes,
        long storageFetchedBytes, List<DiskEpochs> epochs, String ensembleId, long stopEpochMicros, long preSwitchoverEpochMicros,
        long deviceEpochMicros, long resumeEpochMicros) {
    public MigrationRecord {
        id = requireNonNullElse(id, "");
        fromSite = requireNonNullElse(fromSite, "");
        toSite = requireNonNullElse(toSite, "");
        reason = requireNonNullElse(reason, "");
        requestedBy = requireNonNullElse(requestedBy, "");
        ensembleId = requireNonNullElse(ensembleId, "");
        epochs = List.copyOf(requireNonNullElse(epochs, List.of()));
        if (outcome == null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "a migration record needs an outcome");
        }
    }

    /** When it ended: its start plus its total time. */
    public long endedEpochMillis() {
        return startedEpochMillis + totalMicros / 1000;
    }
}
