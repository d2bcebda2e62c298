package io.heliotrope.controller.server;

import io.grpc.stub.StreamObserver;
import io.heliotrope.controller.vm.VmService;
import io.heliotrope.proto.controller.v1.CreateVmRequest;
import io.heliotrope.proto.controller.v1.DeleteVmResponse;
import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.ListVmsRequest;
import io.heliotrope.proto.controller.v1.ListVmsResponse;
import io.heliotrope.proto.controller.v1.MoveVmRequest;
import io.heliotrope.proto.controller.v1.RecordMigrationRequest;
import io.heliotrope.proto.controller.v1.ReportMigrationRequest;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;

import static io.heliotrope.grpc.GrpcReplies.reply;
import static java.util.Objects.requireNonNull;

/** {@code heliotrope.controller.v1.VmService}: protos in, {@link VmService} calls, protos out. */
public final class VmGrpcService extends VmServiceGrpc.VmServiceImplBase {
    private final VmService service;

    public VmGrpcService(VmService service) {
        this.service = requireNonNull(service, "service is null");
    }

    @Override
    public void createVm(CreateVmRequest request, StreamObserver<Vm> observer) {
        reply(() -> service.create(VmProtos.spec(request.getSpec()), request.getSite()), VmProtos::toProto, observer);
    }

    @Override
    public void getVm(GetVmRequest request, StreamObserver<Vm> observer) {
        reply(() -> service.get(request.getName()), VmProtos::toProto, observer);
    }

    @Override
    public void listVms(ListVmsRequest request, StreamObserver<ListVmsResponse> observer) {
        reply(service::list, vms -> ListVmsResponse.newBuilder().addAllVms(vms.stream().map(VmProtos::toProto).toList()).build(), observer);
    }

    @Override
    public void deleteVm(GetVmRequest request, StreamObserver<DeleteVmResponse> observer) {
        reply(() -> service.delete(request.getName()), ignored -> DeleteVmResponse.getDefaultInstance(), observer);
    }

    @Override
    public void moveVm(MoveVmRequest request, StreamObserver<Vm> observer) {
        reply(() -> service.move(request.getName(), request.getSite(), request.getVersion()), VmProtos::toProto, observer);
    }

    @Override
    public void recordMigration(RecordMigrationRequest request, StreamObserver<Vm> observer) {
        reply(() -> service.recordMigration(request.getName(), VmProtos.record(request.getRecord())), VmProtos::toProto, observer);
    }

    @Override
    public void reportMigration(ReportMigrationRequest request, StreamObserver<Vm> observer) {
        reply(() -> service.reportMigration(request.getName(), VmProtos.inFlight(request)), VmProtos::toProto, observer);
    }
}
