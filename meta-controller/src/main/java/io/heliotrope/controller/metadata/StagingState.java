package io.heliotrope.controller.metadata;

import static java.util.Objects.requireNonNull;

/**
 * The data of a {@code staging/<id>} znode. Created as {@code STAGED} at version 0; then
 * exactly one conditional write on version 0 wins: the commit that references the chunks
 * ({@code COMMITTED}) or the sweep that abandons them ({@code ABANDONED}) before deleting.
 */
record StagingState(Phase phase, String owner, long createdEpochMillis, int chunks, int bytes) {
    enum Phase {
        STAGED,
        COMMITTED,
        ABANDONED
    }

    StagingState {
        requireNonNull(phase, "phase is null");
        requireNonNull(owner, "owner is null");
    }

    StagingState in(Phase next) {
        return new StagingState(next, owner, createdEpochMillis, chunks, bytes);
    }
}
