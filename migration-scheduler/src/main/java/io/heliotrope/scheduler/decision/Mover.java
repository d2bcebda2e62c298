package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.scheduler.v1.Move;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** How a decision's moves happen: live migrations through the driver (#21, #22). */
public interface Mover {
    /**
     * Starts the moves of one decision, those to one site switched over together; by VM, a
     * future that completes with its migration's record (or fails when it could not start).
     */
    Map<String, CompletableFuture<MigrationRecord>> start(List<Move> moves, String requestedBy);

    /** The VMs with a migration in flight here. */
    Set<String> migrating();
}
