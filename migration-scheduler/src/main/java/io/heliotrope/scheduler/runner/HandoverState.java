package io.heliotrope.scheduler.runner;

/** Where a source's handover of its disks stands in its current migration. */
public enum HandoverState {
    /** No migration out of here, or one not armed. */
    NONE,
    /** Migrating with hold: parks at {@code pre-switchover} until HandOver (reported as NONE over gRPC). */
    HELD,
    /** Migrating: the disks are handed over on {@code pre-switchover}. */
    ARMED,
    /** Every disk's lease moved; {@code migrate-continue} was sent (held: is sent on ContinueMigration). */
    DONE,
    /** A handover failed or missed its deadline; the migration was cancelled, the disks stay held. */
    FAILED
}
