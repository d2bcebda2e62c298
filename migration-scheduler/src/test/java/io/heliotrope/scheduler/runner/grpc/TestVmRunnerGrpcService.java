package io.heliotrope.scheduler.runner.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.ConsoleInput;
import io.heliotrope.proto.storage.v1.ConsoleOutput;
import io.heliotrope.proto.storage.v1.GetVmRuntimeRequest;
import io.heliotrope.proto.storage.v1.HandoverState;
import io.heliotrope.proto.storage.v1.MigrationState;
import io.heliotrope.proto.storage.v1.VmRuntime;
import io.heliotrope.scheduler.runner.LaunchRecord;
import io.heliotrope.scheduler.runner.MigrationStatus;
import io.heliotrope.scheduler.runner.MigrationTimes;
import io.heliotrope.scheduler.runner.QemuRunner;
import io.heliotrope.scheduler.runner.RunnerConfig;
import io.heliotrope.scheduler.runner.TestingSiteDisks;
import io.heliotrope.scheduler.runner.VmDefinition;
import io.heliotrope.scheduler.runner.VmFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class TestVmRunnerGrpcService {
    @TempDir
    Path dir;

    @Test
    void anUnknownVmIsNotFoundWithTheRunnersMessage() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(new InetSocketAddress("127.0.0.1", 1), image -> CompletableFuture.completedFuture(null));
        try (QemuRunner runner = new QemuRunner(new RunnerConfig("a", dir, null, null, null, null, null), disks)) {
            Reply<VmRuntime> reply = new Reply<>();
            new VmRunnerGrpcService(runner).getVm(GetVmRuntimeRequest.newBuilder().setName("vm1").build(), reply);
            Throwable failure = reply.failure.get();
            assertThat(failure).isInstanceOf(StatusRuntimeException.class);
            assertThat(((StatusRuntimeException) failure).getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(((StatusRuntimeException) failure).getStatus().getDescription()).isEqualTo("vm vm1 has not run at a");
        }
    }

    @Test
    void convertsSpecsAndMigrationStates() {
        VmDefinition vm = VmRunnerProtos.fromProto(VmSpec.newBuilder().setName("vm1").setMemoryBytes(1 << 30).addDisks("root").setKernel("/k").build());
        assertThat(vm).isEqualTo(new VmDefinition("vm1", 1 << 30, 1, List.of("root"), "/k", "", "", "tcg"));

        MigrationState state = VmRunnerProtos.toProto(new MigrationStatus("completed", 10, 0, 9, 1e6, 30, 2, 700, 40,
                io.heliotrope.scheduler.runner.HandoverState.FAILED, "d0: late", new MigrationTimes(1, 2, 3, 4, 5), "", "running"));
        assertThat(state.getHandover()).isEqualTo(HandoverState.HANDOVER_STATE_FAILED);
        assertThat(List.of(state.getStopMicros(), state.getPreSwitchoverMicros(), state.getDeviceMicros(), state.getCompletedMicros(), state.getResumeMicros()))
                .containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(state.getTotalTimeMillis()).isEqualTo(700);
        assertThat(state.getDowntimeMillis()).isEqualTo(40);
        assertThat(state.getHandoverError()).isEqualTo("d0: late");
        assertThat(Duration.ofMillis(state.getExpectedDowntimeMillis())).isEqualTo(Duration.ofMillis(30));
    }

    @Test
    void theConsoleOfAnUnknownVmIsNotFound() throws Exception {
        try (QemuRunner runner = runner()) {
            TestingServerCall<ConsoleOutput> call = new TestingServerCall<>(true);
            new VmRunnerGrpcService(runner).console(call).onNext(ConsoleInput.newBuilder().setName("vm1").build());
            Status status = Status.fromThrowable(call.failure);
            assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(status.getDescription()).isEqualTo("vm vm1 has not run at a");
        }
    }

    @Test
    void theConsoleOfAnExitedVmSendsTheLogOnceTheCallIsReadyThenTheReason() throws Exception {
        VmFiles files = VmFiles.of(dir, "vm1");
        Files.createDirectories(files.dir());
        new LaunchRecord(new VmDefinition("vm1", 64L << 20, 1, List.of(), null, null, null, null), false, -1, 0, 0).write(files.launchRecord());
        Files.writeString(files.consoleLog(), "old\nlast words\n");
        Files.writeString(files.dir().resolve("exit-reason"), "guest shut down");
        try (QemuRunner runner = runner()) {
            TestingServerCall<ConsoleOutput> call = new TestingServerCall<>(false);
            new VmRunnerGrpcService(runner).console(call).onNext(ConsoleInput.newBuilder().setName("vm1").setOffset(-12).build());
            assertThat(call.values).isEmpty();

            call.becomeReady();
            assertThat(call.values).extracting(ConsoleOutput::getOffset, output -> output.getData().toStringUtf8(), ConsoleOutput::getEnded)
                    .containsExactly(tuple(4L, "last words\n", ""), tuple(0L, "", "guest shut down"));
            assertThat(call.completed).isTrue();
        }
    }

    @Test
    void aConsoleFromLaunchStartsWhereTheCurrentQemuBegan() throws Exception {
        VmFiles files = VmFiles.of(dir, "vm1");
        Files.createDirectories(files.dir());
        new LaunchRecord(new VmDefinition("vm1", 64L << 20, 1, List.of(), null, null, null, null), true, 0, 0, 12).write(files.launchRecord());
        Files.writeString(files.consoleLog(), "earlier run\nthis run\n");
        Files.writeString(files.dir().resolve("exit-reason"), "quit");
        try (QemuRunner runner = runner()) {
            TestingServerCall<ConsoleOutput> call = new TestingServerCall<>(true);
            new VmRunnerGrpcService(runner).console(call).onNext(ConsoleInput.newBuilder().setName("vm1").setOffset(-100).setFromLaunch(true).build());
            assertThat(call.values).extracting(ConsoleOutput::getOffset, output -> output.getData().toStringUtf8())
                    .startsWith(tuple(12L, "this run\n"));
        }
    }

    private QemuRunner runner() throws Exception {
        TestingSiteDisks disks = new TestingSiteDisks(new InetSocketAddress("127.0.0.1", 1), image -> CompletableFuture.completedFuture(null));
        return new QemuRunner(new RunnerConfig("a", dir, null, null, null, null, null), disks);
    }

    private static final class Reply<T> implements StreamObserver<T> {
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();

        @Override
        public void onNext(T value) {
            failure.completeExceptionally(new AssertionError("a reply: " + value));
        }

        @Override
        public void onError(Throwable t) {
            failure.complete(t);
        }

        @Override
        public void onCompleted() {
            failure.completeExceptionally(new AssertionError("completed"));
        }
    }
}
