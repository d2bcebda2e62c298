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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The stub VM runner of the scheduler's tests: a move is done the moment it starts, as the
 * controller sees a completed migration (the VM's site set, a completed record appended).
 */
final class RecordingMover implements Mover {
    private final VmServiceGrpc.VmServiceBlockingStub vms;
    private final List<Move> moves = new CopyOnWriteArrayList<>();

    RecordingMover(ManagedChannel controller) {
        this.vms = VmServiceGrpc.newBlockingStub(controller);
    }

    /** Every move made, in order. */
    List<Move> moves() {
        return List.copyOf(moves);
    }

    @Override
    public List<CompletableFuture<MigrationRecord>> start(List<Move> moves, String requestedBy) {
        return moves.stream().map(move -> {
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
            this.moves.add(move);
            return CompletableFuture.completedFuture(record);
        }).toList();
    }

    @Override
    public Set<String> migrating() {
        return Set.of();
    }
}
