package io.heliotrope.scheduler.migration;

import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;

/** What the driver asks of the controller. Calls block; failures are {@code HeliotropeException}s. */
public interface ClusterCalls {
    Vm vm(String name);

    /** The image's write lease as it is. */
    Lease lease(String image);

    /** Step 1 of the handoff, and its renewal: the lease of {@code image} will move from {@code from} to {@code to}. */
    Lease prepare(String image, String from, String to);

    /** Rolls the handoff back before its commit point: the lease is at {@code from} afterwards, at a new epoch. */
    Lease cancelHandoff(String image, String from, String to);

    /** The destination resumed: the handoff can no longer be rolled back. */
    Lease completeHandoff(String image, String from, String to);

    /** Sets the site the VM runs at, if it is still at {@code version}. */
    Vm moveVm(String name, String site, long version);

    /** Appends the result to the VM's history and clears its migration in flight. */
    void recordMigration(String name, MigrationRecord record);

    /** Sets the VM's migration in flight, as the status page and {@code vm show} see it. */
    void reportMigration(String name, MigrationInFlight inFlight);
}
