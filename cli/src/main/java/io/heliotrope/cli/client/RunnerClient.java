package io.heliotrope.cli.client;

import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.GetVmRuntimeRequest;
import io.heliotrope.proto.storage.v1.ListVmRuntimesRequest;
import io.heliotrope.proto.storage.v1.StartVmRequest;
import io.heliotrope.proto.storage.v1.StopVmRequest;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;
import io.heliotrope.proto.storage.v1.VmRuntime;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** A site's VM runner, as the CLI uses it. */
public final class RunnerClient extends GrpcClient {
    public RunnerClient(String site, String address) {
        super(new Target(Target.Kind.SITE, address, "site " + site + " as registered"));
    }

    public VmRuntime start(VmSpec spec) {
        return call(() -> runner().startVm(StartVmRequest.newBuilder().setSpec(spec).build()));
    }

    public VmRuntime stop(String name, boolean kill) {
        return call(() -> runner().stopVm(StopVmRequest.newBuilder().setName(name).setKill(kill).build()));
    }

    public VmRuntime get(String name) {
        return call(() -> runner().getVm(GetVmRuntimeRequest.newBuilder().setName(name).build()));
    }

    List<VmRuntime> list() {
        return call(() -> runner().listVms(ListVmRuntimesRequest.getDefaultInstance()).getVmsList());
    }

    private VmRunnerServiceGrpc.VmRunnerServiceBlockingStub runner() {
        return VmRunnerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
