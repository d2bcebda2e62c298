package io.heliotrope.scheduler.runner.grpc;

import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.AbortIncomingResponse;
import io.heliotrope.proto.storage.v1.HandoverState;
import io.heliotrope.proto.storage.v1.MigrationState;
import io.heliotrope.proto.storage.v1.VmEvent;
import io.heliotrope.proto.storage.v1.VmRuntime;
import io.heliotrope.scheduler.runner.AbortResult;
import io.heliotrope.scheduler.runner.MigrationStatus;
import io.heliotrope.scheduler.runner.MigrationTimes;
import io.heliotrope.scheduler.runner.VmDefinition;

/** The one conversion between {@code heliotrope.storage.v1}'s VM runner messages and the runner's records. */
public final class VmRunnerProtos {
    private VmRunnerProtos() {}

    public static VmDefinition fromProto(VmSpec spec) {
        return new VmDefinition(spec.getName(), spec.getMemoryBytes(), spec.getVcpus(), spec.getDisksList(),
                spec.getKernel(), spec.getInitrd(), spec.getAppend(), spec.getAccel());
    }

    public static VmRuntime toProto(io.heliotrope.scheduler.runner.VmRuntime runtime) {
        return VmRuntime.newBuilder()
                .setName(runtime.name())
                .setSite(runtime.site())
                .setState(runtime.state())
                .setPid((int) runtime.pid())
                .setExitReason(runtime.exitReason())
                .setStateDir(runtime.stateDir().toString())
                .setConsoleLog(runtime.consoleLog().toString())
                .setStartedEpochMillis(runtime.startedEpochMillis())
                .setIncoming(runtime.incoming())
                .setMigrationPort(runtime.migrationPort())
                .setMigrationStatus(runtime.migrationStatus())
                .build();
    }

    public static MigrationState toProto(MigrationStatus status) {
        MigrationTimes times = status.times();
        return MigrationState.newBuilder()
                .setStatus(status.status())
                .setRamTotal(status.ramTotal())
                .setRamRemaining(status.ramRemaining())
                .setRamTransferred(status.ramTransferred())
                .setRamRate(status.ramRate())
                .setExpectedDowntimeMillis(status.expectedDowntimeMillis())
                .setDirtyPagesRate(status.dirtyPagesRate())
                .setHandover(toProto(status.handover()))
                .setHandoverError(status.handoverError())
                .setStopMicros(times.stop())
                .setPreSwitchoverMicros(times.preSwitchover())
                .setDeviceMicros(times.device())
                .setCompletedMicros(times.completed())
                .setResumeMicros(times.resume())
                .setError(status.error())
                .setVmState(status.vmState())
                .setTotalTimeMillis(status.totalTimeMillis())
                .setDowntimeMillis(status.downtimeMillis())
                .build();
    }

    public static AbortIncomingResponse toProto(AbortResult result) {
        return AbortIncomingResponse.newBuilder().setResumed(result.resumed()).setResumeMicros(result.resumeMicros()).build();
    }

    public static VmEvent toProto(io.heliotrope.scheduler.runner.VmEvent event) {
        return VmEvent.newBuilder().setTimestampMicros(event.timestampMicros()).setEvent(event.event()).setDetail(event.detail()).build();
    }

    static HandoverState toProto(io.heliotrope.scheduler.runner.HandoverState state) {
        return switch (state) {
            case NONE, HELD -> HandoverState.HANDOVER_STATE_NONE;
            case ARMED -> HandoverState.HANDOVER_STATE_ARMED;
            case DONE -> HandoverState.HANDOVER_STATE_DONE;
            case FAILED -> HandoverState.HANDOVER_STATE_FAILED;
        };
    }
}
