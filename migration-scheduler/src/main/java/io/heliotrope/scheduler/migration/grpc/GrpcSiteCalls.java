package io.heliotrope.scheduler.migration.grpc;

import io.grpc.ManagedChannel;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.GetVmRuntimeRequest;
import io.heliotrope.proto.storage.v1.HandoffServiceGrpc;
import io.heliotrope.proto.storage.v1.HandoffStatus;
import io.heliotrope.proto.storage.v1.ImageHandoffRequest;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.MigrationState;
import io.heliotrope.proto.storage.v1.SiteStatus;
import io.heliotrope.proto.storage.v1.StandbyRequest;
import io.heliotrope.proto.storage.v1.StartMigrationRequest;
import io.heliotrope.proto.storage.v1.StartVmRequest;
import io.heliotrope.proto.storage.v1.StopVmRequest;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;
import io.heliotrope.proto.storage.v1.VmRuntime;
import io.heliotrope.scheduler.migration.SiteCalls;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.scheduler.migration.grpc.Calls.call;
import static java.util.Objects.requireNonNull;

/** A site's VM runner and handoff services over gRPC, each call with a deadline. */
public final class GrpcSiteCalls implements SiteCalls {
    private final ManagedChannel channel;
    private final String site;
    private final Duration deadline;

    public GrpcSiteCalls(ManagedChannel channel, String site, Duration deadline) {
        this.channel = requireNonNull(channel, "channel is null");
        this.site = requireNonNull(site, "site is null");
        this.deadline = requireNonNull(deadline, "deadline is null");
    }

    @Override
    public VmRuntime runtime(String vm) {
        return call(site, () -> runner().getVm(vm(vm)));
    }

    @Override
    public VmRuntime startVm(VmSpec spec, boolean incoming) {
        return call(site, () -> runner().startVm(StartVmRequest.newBuilder().setSpec(spec).setIncoming(incoming).build()));
    }

    @Override
    public VmRuntime startMigration(StartMigrationRequest request) {
        return call(site, () -> runner().startMigration(request));
    }

    @Override
    public MigrationState queryMigration(String vm) {
        return call(site, () -> runner().queryMigration(vm(vm)));
    }

    @Override
    public MigrationState handOver(String vm) {
        return call(site, () -> runner().handOver(vm(vm)));
    }

    @Override
    public MigrationState continueMigration(String vm) {
        return call(site, () -> runner().continueMigration(vm(vm)));
    }

    @Override
    public VmRuntime cancelMigration(String vm) {
        return call(site, () -> runner().cancelMigration(vm(vm)));
    }

    @Override
    public VmRuntime pauseVm(String vm) {
        return call(site, () -> runner().pauseVm(vm(vm)));
    }

    @Override
    public VmRuntime continueVm(String vm) {
        return call(site, () -> runner().continueVm(vm(vm)));
    }

    @Override
    public VmRuntime stopVm(String vm) {
        return call(site, () -> runner().stopVm(StopVmRequest.newBuilder().setName(vm).build()));
    }

    @Override
    public boolean abortIncoming(String vm) {
        return call(site, () -> runner().abortIncoming(vm(vm))).getResumed();
    }

    @Override
    public Traffic traffic(String image) {
        SiteStatus status = call(site, () -> ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .getSiteStatus(GetSiteStatusRequest.getDefaultInstance()));
        return status.getImagesList().stream()
                .filter(known -> known.getName().equals(image))
                .map(known -> new Traffic(known.getPushedBytes(), known.getFetchedBytes()))
                .findFirst()
                .orElse(Traffic.NONE);
    }

    @Override
    public HandoffStatus standby(String image, String fromSite) {
        return call(site, () -> handoffs().standby(StandbyRequest.newBuilder().setImage(image).setFromSite(fromSite).build())).getStatus();
    }

    @Override
    public HandoffStatus handoff(String image) {
        return call(site, () -> handoffs().getHandoff(image(image)));
    }

    @Override
    public HandoffStatus reclaim(String image) {
        return call(site, () -> handoffs().reclaim(image(image)));
    }

    @Override
    public HandoffStatus endHold(String image) {
        return call(site, () -> handoffs().endHold(image(image)));
    }

    @Override
    public HandoffStatus abandon(String image) {
        return call(site, () -> handoffs().abandon(image(image)));
    }

    private static GetVmRuntimeRequest vm(String name) {
        return GetVmRuntimeRequest.newBuilder().setName(name).build();
    }

    private static ImageHandoffRequest image(String name) {
        return ImageHandoffRequest.newBuilder().setImage(name).build();
    }

    private VmRunnerServiceGrpc.VmRunnerServiceBlockingStub runner() {
        return VmRunnerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    private HandoffServiceGrpc.HandoffServiceBlockingStub handoffs() {
        return HandoffServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }
}
