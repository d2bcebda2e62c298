package io.heliotrope.controller.cluster;

import java.util.List;

/**
 * The VMs of the cluster as the status port shows them ({@code /api/vms}, in JSON): each VM
 * with what its site's runner says of it and its disks' leases, the migrations in flight, and
 * the newest migrations done across every VM, newest first. Times are milliseconds since the
 * epoch by the controller's clock, durations microseconds, sizes bytes.
 */
public record VmsStatus(long generatedEpochMillis, List<VmState> vms, List<InFlight> inFlight, List<Done> history) {
    public VmsStatus {
        vms = List.copyOf(vms);
        inFlight = List.copyOf(inFlight);
        history = List.copyOf(history);
    }

    /**
     * A VM at {@code site}: its state there (QEMU's run state, {@code exited} with the exit
     * reason, {@code not running}, or {@code unknown (...)} saying why when the site's runner
     * did not answer), what every site that answered runs of that name (at a migration, the
     * destination too), and its disks.
     */
    public record VmState(String name, String site, String state, String exitReason, long memoryBytes, int vcpus, List<Runtime> runtimes,
            List<Disk> disks) {
        public VmState {
            runtimes = List.copyOf(runtimes);
            disks = List.copyOf(disks);
        }
    }

    /** A QEMU of the VM at {@code site}, as that site's runner reports it. */
    public record Runtime(String site, String state, String exitReason, boolean incoming, String migrationStatus) {}

    /** A disk and its image's write lease; {@code error} says why the lease could not be read (the image is gone). */
    public record Disk(String image, String holder, long epoch, String movingTo, String error) {}

    /**
     * A migration in flight as its driver last reported it, with the share of the RAM sent;
     * {@code stale} when no report came for longer than {@code MigrationInFlight.STALE_AFTER}:
     * its driver died or lost the controller, and what it shows is no longer current.
     */
    public record InFlight(String vm, String id, String fromSite, String toSite, String phase, long startedEpochMillis, long reportedEpochMillis,
            long elapsedMillis, long ramTotal, long ramRemaining, double ramSentPercent, long storageBacklogBytes, String requestedBy,
            String ensembleId, boolean stale) {}

    /** A migration done, with its outcome ({@code completed}, {@code rolled_back}, {@code cancelled}, {@code failed}). */
    public record Done(String vm, String id, long startedEpochMillis, long endedEpochMillis, String fromSite, String toSite, String outcome,
            String reason, long totalMicros, long downtimeMicros, long handoffMicros, long ramBytes, long storagePushedBytes,
            long storageFetchedBytes, String requestedBy, String ensembleId) {}
}
