package io.heliotrope.it;

import io.grpc.ManagedChannel;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateVmRequest;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.ReportRttRequest;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.controller.v1.VmSpec;

import java.util.Map;

/** What the scheduler's tests give a controller that has sites but no site process: VMs defined there, and round trips as if measured. */
final class SchedulerFixtures {
    private SchedulerFixtures() {}

    /** Defines VMs at {@code site} (256 MiB, booting a kernel; none is started). */
    static void createVms(ManagedChannel controller, String site, String... names) {
        VmServiceGrpc.VmServiceBlockingStub vms = VmServiceGrpc.newBlockingStub(controller);
        for (String name : names) {
            vms.createVm(CreateVmRequest.newBuilder().setSite(site)
                    .setSpec(VmSpec.newBuilder().setName(name).setMemoryBytes(256 << 20).setVcpus(1).setKernel("/boot/vmlinuz")).build());
        }
    }

    /** What the sites' probes would report, per site its round trips in microseconds, fresh for ten minutes. */
    static void reportRtt(ManagedChannel controller, Map<String, Map<String, Long>> rtt) {
        ControllerServiceGrpc.ControllerServiceBlockingStub stub = ControllerServiceGrpc.newBlockingStub(controller);
        rtt.forEach((site, peers) -> {
            ReportRttRequest.Builder report = ReportRttRequest.newBuilder().setSite(site).setProbePeriodMillis(600_000);
            peers.forEach((peer, micros) -> report.addPeers(PeerRtt.newBuilder().setPeer(peer).setRttMicros(micros)));
            stub.reportRtt(report.build());
        });
    }
}
