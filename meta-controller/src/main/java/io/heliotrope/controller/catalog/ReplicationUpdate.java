package io.heliotrope.controller.catalog;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

/**
 * Replication settings a caller gives, at creation or later: each null one keeps its value
 * (at creation, its default). {@link ImageConfig} checks the values; this refuses only an
 * explicit 0 sync copies, which a config reads as the default. A {@code syncMin} of 0 goes
 * back to its default ({@link ImageConfig#syncMinCopies()}). A {@code pull} of
 * {@link PullMode#UNSPECIFIED} (not null) goes back to the mode's default.
 */
public record ReplicationUpdate(
        PropagationMode mode,
        Double k,
        Double s,
        String home,
        Integer syncCopies,
        Long bandwidthBytesPerSecond,
        Long budgetBytesPerDay,
        TransitionTable transitions,
        PullMode pull,
        Integer syncMin) {
    public static final ReplicationUpdate NONE = new ReplicationUpdate(null, null, null, null, null, null, null, null, null, null);

    /** Sets the home only. */
    public static ReplicationUpdate home(String site) {
        return new ReplicationUpdate(null, null, null, site, null, null, null, null, null, null);
    }

    public ReplicationUpdate {
        if (syncCopies != null && syncCopies < 1) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "sync copies must be at least 1, not " + Integer.toUnsignedString(syncCopies));
        }
        if (syncMin != null && syncMin < 0) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "sync min must be at least 1 (0: the default), not " + Integer.toUnsignedString(syncMin));
        }
    }
}
