package io.heliotrope.controller.server;

import io.heliotrope.controller.vm.DiskEpochs;
import io.heliotrope.controller.vm.MigrationInFlight;
import io.heliotrope.controller.vm.MigrationOutcome;
import io.heliotrope.controller.vm.MigrationRecord;
import io.heliotrope.controller.vm.Vm;
import io.heliotrope.controller.vm.VmSpec;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

/** Conversions between {@code heliotrope.controller.v1} VM messages and the {@code controller.vm} records. */
final class VmProtos {
    private VmProtos() {}

    static VmSpec spec(io.heliotrope.proto.controller.v1.VmSpec spec) {
        return new VmSpec(spec.getName(), spec.getMemoryBytes(), spec.getVcpus(), spec.getDisksList(), spec.getKernel(), spec.getInitrd(),
                spec.getAppend(), spec.getAccel());
    }

    static io.heliotrope.proto.controller.v1.Vm toProto(Vm vm) {
        VmSpec spec = vm.spec();
        io.heliotrope.proto.controller.v1.Vm.Builder proto = io.heliotrope.proto.controller.v1.Vm.newBuilder()
                .setSpec(io.heliotrope.proto.controller.v1.VmSpec.newBuilder()
                        .setName(spec.name())
                        .setMemoryBytes(spec.memoryBytes())
                        .setVcpus(spec.vcpus())
                        .addAllDisks(spec.disks())
                        .setKernel(spec.kernel())
                        .setInitrd(spec.initrd())
                        .setAppend(spec.append())
                        .setAccel(spec.accel()))
                .setSite(vm.site())
                .setCreatedEpochMillis(vm.createdEpochMillis())
                .setVersion(vm.version())
                .addAllMigrations(vm.migrations().stream().map(VmProtos::toProto).toList());
        if (vm.inFlight() != null) {
            proto.setInFlight(toProto(vm.inFlight()));
        }
        return proto.build();
    }

    /** The migration in flight of a report; null when it has none (the report clears it). */
    static MigrationInFlight inFlight(io.heliotrope.proto.controller.v1.ReportMigrationRequest request) {
        if (!request.hasInFlight()) {
            return null;
        }
        io.heliotrope.proto.controller.v1.MigrationInFlight inFlight = request.getInFlight();
        return new MigrationInFlight(inFlight.getId(), inFlight.getFromSite(), inFlight.getToSite(), inFlight.getPhase(),
                inFlight.getStartedEpochMillis(), inFlight.getReportedEpochMillis(), inFlight.getRamTotal(), inFlight.getRamRemaining(),
                inFlight.getStorageBacklogBytes(), inFlight.getRequestedBy(), inFlight.getEnsembleId());
    }

    private static io.heliotrope.proto.controller.v1.MigrationInFlight toProto(MigrationInFlight inFlight) {
        return io.heliotrope.proto.controller.v1.MigrationInFlight.newBuilder()
                .setId(inFlight.id())
                .setFromSite(inFlight.fromSite())
                .setToSite(inFlight.toSite())
                .setPhase(inFlight.phase())
                .setStartedEpochMillis(inFlight.startedEpochMillis())
                .setReportedEpochMillis(inFlight.reportedEpochMillis())
                .setRamTotal(inFlight.ramTotal())
                .setRamRemaining(inFlight.ramRemaining())
                .setStorageBacklogBytes(inFlight.storageBacklogBytes())
                .setRequestedBy(inFlight.requestedBy())
                .setEnsembleId(inFlight.ensembleId())
                .build();
    }

    static MigrationRecord record(io.heliotrope.proto.controller.v1.MigrationRecord record) {
        return new MigrationRecord(record.getId(), record.getFromSite(), record.getToSite(), outcome(record.getOutcome()), record.getReason(),
                record.getRequestedBy(), record.getStartedEpochMillis(), record.getTotalMicros(), record.getDowntimeMicros(),
                record.getHandoffMicros(), record.getRamBytes(), record.getStoragePushedBytes(), record.getStorageFetchedBytes(),
                record.getEpochsList().stream().map(epochs -> new DiskEpochs(epochs.getImage(), epochs.getEpochBefore(), epochs.getEpochAfter())).toList(),
                record.getEnsembleId(), record.getStopEpochMicros(), record.getPreSwitchoverEpochMicros(), record.getDeviceEpochMicros(),
                record.getResumeEpochMicros());
    }

    private static io.heliotrope.proto.controller.v1.MigrationRecord toProto(MigrationRecord record) {
        return io.heliotrope.proto.controller.v1.MigrationRecord.newBuilder()
                .setId(record.id())
                .setFromSite(record.fromSite())
                .setToSite(record.toSite())
                .setOutcome(toProto(record.outcome()))
                .setReason(record.reason())
                .setRequestedBy(record.requestedBy())
                .setStartedEpochMillis(record.startedEpochMillis())
                .setTotalMicros(record.totalMicros())
                .setDowntimeMicros(record.downtimeMicros())
                .setHandoffMicros(record.handoffMicros())
                .setRamBytes(record.ramBytes())
                .setStoragePushedBytes(record.storagePushedBytes())
                .setStorageFetchedBytes(record.storageFetchedBytes())
                .addAllEpochs(record.epochs().stream().map(epochs -> io.heliotrope.proto.controller.v1.DiskEpochs.newBuilder()
                        .setImage(epochs.image()).setEpochBefore(epochs.epochBefore()).setEpochAfter(epochs.epochAfter()).build()).toList())
                .setEnsembleId(record.ensembleId())
                .setStopEpochMicros(record.stopEpochMicros())
                .setPreSwitchoverEpochMicros(record.preSwitchoverEpochMicros())
                .setDeviceEpochMicros(record.deviceEpochMicros())
                .setResumeEpochMicros(record.resumeEpochMicros())
                .build();
    }

    private static MigrationOutcome outcome(io.heliotrope.proto.controller.v1.MigrationOutcome outcome) {
        return switch (outcome) {
            case MIGRATION_OUTCOME_COMPLETED -> MigrationOutcome.COMPLETED;
            case MIGRATION_OUTCOME_ROLLED_BACK -> MigrationOutcome.ROLLED_BACK;
            case MIGRATION_OUTCOME_CANCELLED -> MigrationOutcome.CANCELLED;
            case MIGRATION_OUTCOME_FAILED -> MigrationOutcome.FAILED;
            case MIGRATION_OUTCOME_UNSPECIFIED, UNRECOGNIZED -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "a migration record needs an outcome: completed, rolled back, cancelled or failed");
        };
    }

    private static io.heliotrope.proto.controller.v1.MigrationOutcome toProto(MigrationOutcome outcome) {
        return switch (outcome) {
            case COMPLETED -> io.heliotrope.proto.controller.v1.MigrationOutcome.MIGRATION_OUTCOME_COMPLETED;
            case ROLLED_BACK -> io.heliotrope.proto.controller.v1.MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK;
            case CANCELLED -> io.heliotrope.proto.controller.v1.MigrationOutcome.MIGRATION_OUTCOME_CANCELLED;
            case FAILED -> io.heliotrope.proto.controller.v1.MigrationOutcome.MIGRATION_OUTCOME_FAILED;
        };
    }
}
