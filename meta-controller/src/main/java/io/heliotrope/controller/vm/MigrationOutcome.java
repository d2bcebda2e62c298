package io.heliotrope.controller.vm;

/** How a migration ended (see {@code heliotrope.controller.v1.MigrationOutcome}). */
public enum MigrationOutcome {
    COMPLETED,
    /** Failed before the commit point: the VM runs at its source, its leases back there. */
    ROLLED_BACK,
    CANCELLED,
    /** Could not start, or could not be rolled back cleanly: see the reason. */
    FAILED
}
