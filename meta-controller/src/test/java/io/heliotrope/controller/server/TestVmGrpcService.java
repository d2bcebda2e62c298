package io.heliotrope.controller.server;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.CreateVmRequest;
import io.heliotrope.proto.controller.v1.DiskEpochs;
import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.ListVmsRequest;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.MoveVmRequest;
import io.heliotrope.proto.controller.v1.RecordMigrationRequest;
import io.heliotrope.proto.controller.v1.ReportMigrationRequest;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.controller.v1.VmSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The controller's VmService through its gRPC server: what the CLI and the driver see. */
@ExtendWith(ZooKeeperExtension.class)
class TestVmGrpcService {
    private static final VmSpec WEB = VmSpec.newBuilder().setName("web").setMemoryBytes(256L << 20).setVcpus(1).addDisks("root-disk").build();

    private ControllerServer server;
    private ManagedChannel channel;
    private VmServiceGrpc.VmServiceBlockingStub vms;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) throws IOException {
        server = ControllerServer.start(new ControllerConfig(zooKeeper.connectString(), null, 0, 0, null, null, TestingController.newRoot()));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.grpcPort(), InsecureChannelCredentials.create()).build();
        vms = VmServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        ControllerServiceGrpc.ControllerServiceBlockingStub controller = ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        controller.registerSite(Site.newBuilder().setName("virginia").build());
        controller.registerSite(Site.newBuilder().setName("taiwan").build());
        controller.createImage(CreateImageRequest.newBuilder().setName("root-disk").setSizeBytes(1 << 20).build());
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.close();
    }

    @Test
    void aVmIsCreatedMovedAndKeepsItsMigrations() {
        Vm created = vms.createVm(CreateVmRequest.newBuilder().setSpec(WEB).setSite("virginia").build());
        assertThat(created.getSpec()).isEqualTo(WEB.toBuilder().setAccel("tcg").build());
        assertThat(created.getVersion()).isEqualTo(1);
        MigrationRecord record = completed("m1");

        Vm moved = vms.moveVm(MoveVmRequest.newBuilder().setName("web").setSite("taiwan").setVersion(1).build());
        Vm recorded = vms.recordMigration(RecordMigrationRequest.newBuilder().setName("web").setRecord(record).build());

        assertThat(moved.getSite()).isEqualTo("taiwan");
        assertThat(recorded.getMigrationsList()).containsExactly(record);
        assertThat(recorded.getVersion()).isEqualTo(3);
        assertThat(vms.getVm(GetVmRequest.newBuilder().setName("web").build())).isEqualTo(recorded);
        assertThat(vms.listVms(ListVmsRequest.getDefaultInstance()).getVmsList()).containsExactly(recorded);
        vms.deleteVm(GetVmRequest.newBuilder().setName("web").build());
        assertThat(vms.listVms(ListVmsRequest.getDefaultInstance()).getVmsList()).isEmpty();
    }

    @Test
    void aProgressReportBetweenReadAndMoveLeavesTheMoveValidAndTheRecordClearsIt() {
        Vm created = vms.createVm(CreateVmRequest.newBuilder().setSpec(WEB).setSite("virginia").build());
        MigrationInFlight inFlight = MigrationInFlight.newBuilder().setId("m1").setFromSite("virginia").setToSite("taiwan").setPhase("precopy")
                .setStartedEpochMillis(1_700_000_000_000L).setRamTotal(256L << 20).setRamRemaining(64L << 20).setStorageBacklogBytes(1 << 20)
                .setRequestedBy("operator").setEnsembleId("e1").build();
        long before = System.currentTimeMillis();

        Vm reported = vms.reportMigration(ReportMigrationRequest.newBuilder().setName("web").setInFlight(inFlight).build());

        assertThat(reported.getInFlight().toBuilder().clearReportedEpochMillis().build()).isEqualTo(inFlight);
        assertThat(reported.getInFlight().getReportedEpochMillis()).isBetween(before, System.currentTimeMillis());
        assertThat(reported.getVersion()).isEqualTo(created.getVersion());
        vms.moveVm(MoveVmRequest.newBuilder().setName("web").setSite("taiwan").setVersion(created.getVersion()).build());
        MigrationRecord record = completed("m1").toBuilder().setEnsembleId("e1").setStopEpochMicros(1_700_000_001_000_000L)
                .setPreSwitchoverEpochMicros(1_700_000_001_010_000L).setDeviceEpochMicros(1_700_000_001_040_000L)
                .setResumeEpochMicros(1_700_000_001_170_000L).build();
        Vm recorded = vms.recordMigration(RecordMigrationRequest.newBuilder().setName("web").setRecord(record).build());

        assertThat(recorded.hasInFlight()).isFalse();
        assertThat(vms.getVm(GetVmRequest.newBuilder().setName("web").build()).getMigrationsList()).containsExactly(record);
    }

    @Test
    void recordedMigrationsAreCountedOnTheMetricsPage() throws Exception {
        vms.createVm(CreateVmRequest.newBuilder().setSpec(WEB).setSite("virginia").build());
        vms.recordMigration(RecordMigrationRequest.newBuilder().setName("web").setRecord(completed("m1")).build());
        vms.recordMigration(RecordMigrationRequest.newBuilder().setName("web").setRecord(completed("m2").toBuilder()
                .setOutcome(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK).setReason("the destination died").setDowntimeMicros(0)).build());

        HttpResponse<String> metrics = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.statusPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body())
                .contains("heliotrope_migrations_total{outcome=\"completed\"} 1.0")
                .contains("heliotrope_migrations_total{outcome=\"rolled_back\"} 1.0")
                .contains("heliotrope_migration_downtime_seconds_count 1")
                .contains("heliotrope_migration_downtime_seconds_sum 0.17")
                .contains("heliotrope_migration_downtime_seconds_bucket{le=\"0.25\"} 1")
                .contains("heliotrope_migration_downtime_seconds_bucket{le=\"0.1\"} 0")
                .contains("heliotrope_migration_handoff_seconds_bucket{le=\"0.05\"} 1")
                .contains("heliotrope_migration_ram_bytes_total " + (double) (600L << 20))
                .contains("heliotrope_migration_storage_pushed_bytes_total " + (double) (2 << 20))
                .contains("heliotrope_migration_storage_fetched_bytes_total 8192.0");
    }

    @Test
    void refusalsArriveWithTheirStatusAndCode() {
        vms.createVm(CreateVmRequest.newBuilder().setSpec(WEB).setSite("virginia").build());

        assertRefused(() -> vms.createVm(CreateVmRequest.newBuilder().setSpec(WEB).setSite("taiwan").build()),
                Status.Code.ALREADY_EXISTS, ErrorCode.VM_EXISTS, "VM 'web' already exists");
        assertRefused(() -> vms.createVm(CreateVmRequest.newBuilder().setSpec(WEB.toBuilder().setName("db").addDisks("nope")).setSite("taiwan").build()),
                Status.Code.NOT_FOUND, ErrorCode.IMAGE_NOT_FOUND, "image 'nope' does not exist");
        assertRefused(() -> vms.moveVm(MoveVmRequest.newBuilder().setName("web").setSite("taiwan").setVersion(7).build()),
                Status.Code.FAILED_PRECONDITION, ErrorCode.VM_BUSY, "VM 'web' changed since it was read (version 1, not 7); read it again");
        assertRefused(() -> vms.getVm(GetVmRequest.newBuilder().setName("db").build()),
                Status.Code.NOT_FOUND, ErrorCode.VM_NOT_FOUND, "VM 'db' does not exist");
        assertRefused(() -> vms.recordMigration(RecordMigrationRequest.newBuilder().setName("web").build()), Status.Code.INVALID_ARGUMENT,
                ErrorCode.INVALID_ARGUMENT, "a migration record needs an outcome: completed, rolled back, cancelled or failed");
        assertRefused(() -> vms.reportMigration(ReportMigrationRequest.newBuilder().setName("web").setInFlight(MigrationInFlight.newBuilder()).build()),
                Status.Code.INVALID_ARGUMENT, ErrorCode.INVALID_ARGUMENT, "a migration in flight needs an id");
        assertRefused(() -> vms.reportMigration(ReportMigrationRequest.newBuilder().setName("db").build()),
                Status.Code.NOT_FOUND, ErrorCode.VM_NOT_FOUND, "VM 'db' does not exist");
    }

    private static MigrationRecord completed(String id) {
        return MigrationRecord.newBuilder().setId(id).setFromSite("virginia").setToSite("taiwan")
                .setOutcome(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED).setRequestedBy("operator").setStartedEpochMillis(1_700_000_000_000L)
                .setTotalMicros(1_050_000).setDowntimeMicros(170_000).setHandoffMicros(30_000).setRamBytes(300L << 20)
                .setStoragePushedBytes(1 << 20).setStorageFetchedBytes(4096)
                .addEpochs(DiskEpochs.newBuilder().setImage("root-disk").setEpochBefore(1).setEpochAfter(2)).build();
    }

    private static void assertRefused(Runnable call, Status.Code status, ErrorCode code, String message) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(status);
            assertThat(GrpcErrors.toException(e, "controller")).hasMessage(message).satisfies(error -> assertThat(error.code()).isEqualTo(code));
        });
    }
}
