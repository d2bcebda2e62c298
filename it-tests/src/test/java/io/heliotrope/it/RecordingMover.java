package io.heliotrope.it;

import io.grpc.ManagedChannel;
import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.MoveVmRequest;
import io.heliotrope.proto.controller.v1.RecordMigrationRequest;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.scheduler.decision.Mover;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The stub VM runner of the scheduler's tests: a move is done the moment it starts, as the
 * controller sees a completed migration (the VM's site set, a completed record appended).
 */
final class RecordingMover implements Mover {
    private final VmServiceGrpc.VmServiceBlockingStub vms;

    RecordingMover(ManagedChannel controller) {
        this.vms = VmServiceGrpc.newBlockingStub(controller);
    }

    @Override
    public Map<String, CompletableFuture<MigrationRecord>> start(List<Move> moves, String requestedBy) {
        Map<String, CompletableFuture<MigrationRecord>> results = new TreeMap<>();
        for (Move move : moves) {
            Vm vm = vms.getVm(GetVmRequest.newBuilder().setName(move.getVm()).build());
            vms.moveVm(MoveVmRequest.newBuilder().setName(move.getVm()).setSite(move.getToSite()).setVersion(vm.getVersion()).build());
            MigrationRecord record = MigrationRecord.newBuilder()
                    .setId(UUID.randomUUID().toString())
                    .setFromSite(move.getFromSite())
                    .setToSite(move.getToSite())
                    .setOutcome(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED)
                    .setRequestedBy(requestedBy)
                    .setStartedEpochMillis(System.currentTimeMillis())
                    .build();
            vms.recordMigration(RecordMigrationRequest.newBuilder().setName(move.getVm()).setRecord(record).build());
            results.put(move.getVm(), CompletableFuture.completedFuture(record));
        }
        return results;
    }

    @Override
    public Set<String> migrating() {
        return Set.of();
    }
}
