package io.heliotrope.scheduler.migration;

import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.HandoffStatus;
import io.heliotrope.proto.storage.v1.MigrationState;
import io.heliotrope.proto.storage.v1.StartMigrationRequest;
import io.heliotrope.proto.storage.v1.VmRuntime;

/**
 * What the driver asks of one site: its VM runner and its side of the storage handoff.
 * Calls block; failures are {@code HeliotropeException}s.
 */
public interface SiteCalls {
    VmRuntime runtime(String vm);

    VmRuntime startVm(VmSpec spec, boolean incoming);

    VmRuntime startMigration(StartMigrationRequest request);

    MigrationState queryMigration(String vm);

    /** At a source started with hold and parked at {@code pre-switchover}: hands every disk over to the destination. */
    MigrationState handOver(String vm);

    /** At a source whose disks were handed over: {@code migrate-continue}. */
    MigrationState continueMigration(String vm);

    VmRuntime cancelMigration(String vm);

    VmRuntime pauseVm(String vm);

    VmRuntime continueVm(String vm);

    VmRuntime stopVm(String vm);

    /** Whether the destination's guest had resumed; if not, it never will and its QEMU is gone. */
    boolean abortIncoming(String vm);

    /** Block bytes this site pushed to other sites and fetched from them for {@code image} since it started. */
    Traffic traffic(String image);

    record Traffic(long pushedBytes, long fetchedBytes) {
        public static final Traffic NONE = new Traffic(0, 0);

        public Traffic since(Traffic earlier) {
            return new Traffic(pushedBytes - earlier.pushedBytes, fetchedBytes - earlier.fetchedBytes);
        }
    }

    HandoffStatus standby(String image, String fromSite);

    HandoffStatus handoff(String image);

    HandoffStatus reclaim(String image);

    HandoffStatus endHold(String image);

    HandoffStatus abandon(String image);
}
