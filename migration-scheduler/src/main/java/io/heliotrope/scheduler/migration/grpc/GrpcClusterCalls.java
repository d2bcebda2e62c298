package io.heliotrope.scheduler.migration.grpc;

import io.grpc.ManagedChannel;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.GetRttMatrixRequest;
import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.HandoffRequest;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.ListSitesRequest;
import io.heliotrope.proto.controller.v1.ListVmsRequest;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.MoveVmRequest;
import io.heliotrope.proto.controller.v1.PrepareRequest;
import io.heliotrope.proto.controller.v1.RecordMigrationRequest;
import io.heliotrope.proto.controller.v1.ReportMigrationRequest;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.scheduler.decision.ClusterState;
import io.heliotrope.scheduler.migration.ClusterCalls;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.scheduler.migration.grpc.Calls.call;
import static java.util.Objects.requireNonNull;

/** The controller over gRPC, each call with a deadline: for the driver, and for the scheduler's rounds. */
public final class GrpcClusterCalls implements ClusterCalls, ClusterState {
    private final ManagedChannel channel;
    private final String target;
    private final Duration deadline;

    public GrpcClusterCalls(ManagedChannel channel, String target, Duration deadline) {
        this.channel = requireNonNull(channel, "channel is null");
        this.target = requireNonNull(target, "target is null");
        this.deadline = requireNonNull(deadline, "deadline is null");
    }

    @Override
    public Vm vm(String name) {
        return call(target, () -> vmService().getVm(GetVmRequest.newBuilder().setName(name).build()));
    }

    @Override
    public List<Site> sites() {
        return call(target, () -> controller().listSites(ListSitesRequest.getDefaultInstance()).getSitesList());
    }

    @Override
    public RttMatrix rtt() {
        return call(target, () -> controller().getRttMatrix(GetRttMatrixRequest.getDefaultInstance()));
    }

    @Override
    public List<Vm> vms() {
        return call(target, () -> vmService().listVms(ListVmsRequest.getDefaultInstance()).getVmsList());
    }

    @Override
    public Lease lease(String image) {
        return call(target, () -> controller().getLease(GetImageRequest.newBuilder().setName(image).build()));
    }

    @Override
    public Lease prepare(String image, String from, String to) {
        return call(target, () -> controller().prepare(PrepareRequest.newBuilder().setImage(image).setFromSite(from).setToSite(to).build()));
    }

    @Override
    public Lease cancelHandoff(String image, String from, String to) {
        return call(target, () -> controller().cancelHandoff(handoff(image, from, to)));
    }

    @Override
    public Lease completeHandoff(String image, String from, String to) {
        return call(target, () -> controller().completeHandoff(handoff(image, from, to)));
    }

    @Override
    public Vm moveVm(String name, String site, long version) {
        return call(target, () -> vmService().moveVm(MoveVmRequest.newBuilder().setName(name).setSite(site).setVersion(version).build()));
    }

    @Override
    public void recordMigration(String name, MigrationRecord record) {
        call(target, () -> vmService().recordMigration(RecordMigrationRequest.newBuilder().setName(name).setRecord(record).build()));
    }

    @Override
    public void reportMigration(String name, MigrationInFlight inFlight) {
        call(target, () -> vmService().reportMigration(ReportMigrationRequest.newBuilder().setName(name).setInFlight(inFlight).build()));
    }

    private static HandoffRequest handoff(String image, String from, String to) {
        return HandoffRequest.newBuilder().setImage(image).setFromSite(from).setToSite(to).build();
    }

    private ControllerServiceGrpc.ControllerServiceBlockingStub controller() {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    private VmServiceGrpc.VmServiceBlockingStub vmService() {
        return VmServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }
}
