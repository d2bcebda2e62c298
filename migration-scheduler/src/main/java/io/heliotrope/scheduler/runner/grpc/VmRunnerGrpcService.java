package io.heliotrope.scheduler.runner.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.storage.v1.AbortIncomingResponse;
import io.heliotrope.proto.storage.v1.ConsoleInput;
import io.heliotrope.proto.storage.v1.ConsoleOutput;
import io.heliotrope.proto.storage.v1.GetVmRuntimeRequest;
import io.heliotrope.proto.storage.v1.ListVmRuntimesRequest;
import io.heliotrope.proto.storage.v1.ListVmRuntimesResponse;
import io.heliotrope.proto.storage.v1.MigrationState;
import io.heliotrope.proto.storage.v1.StartMigrationRequest;
import io.heliotrope.proto.storage.v1.StartVmRequest;
import io.heliotrope.proto.storage.v1.StopVmRequest;
import io.heliotrope.proto.storage.v1.VmEvent;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;
import io.heliotrope.proto.storage.v1.VmRuntime;
import io.heliotrope.scheduler.runner.QemuRunner;

import java.time.Duration;

import static io.heliotrope.grpc.GrpcReplies.reply;
import static java.util.Objects.requireNonNull;

/** {@code heliotrope.storage.v1.VmRunnerService}: protos in, {@link QemuRunner} calls, protos out. */
public final class VmRunnerGrpcService extends VmRunnerServiceGrpc.VmRunnerServiceImplBase {
    private final QemuRunner runner;

    public VmRunnerGrpcService(QemuRunner runner) {
        this.runner = requireNonNull(runner, "runner is null");
    }

    @Override
    public void startVm(StartVmRequest request, StreamObserver<VmRuntime> observer) {
        reply(() -> runner.start(VmRunnerProtos.fromProto(request.getSpec()), request.getIncoming()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void stopVm(StopVmRequest request, StreamObserver<VmRuntime> observer) {
        reply(() -> runner.stop(request.getName(), request.getKill()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void getVm(GetVmRuntimeRequest request, StreamObserver<VmRuntime> observer) {
        reply(() -> runner.get(request.getName()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void listVms(ListVmRuntimesRequest request, StreamObserver<ListVmRuntimesResponse> observer) {
        reply(runner::list, runtimes -> ListVmRuntimesResponse.newBuilder()
                .addAllVms(runtimes.stream().map(VmRunnerProtos::toProto).toList())
                .build(), observer);
    }

    @Override
    public void startMigration(StartMigrationRequest request, StreamObserver<VmRuntime> observer) {
        reply(() -> runner.startMigration(request.getName(), request.getToSite(), request.getMigrationPort(),
                Duration.ofMillis(request.getHandoverDeadlineMillis()), request.getMaxBandwidth(), request.getHold()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void handOver(GetVmRuntimeRequest request, StreamObserver<MigrationState> observer) {
        reply(() -> runner.handOver(request.getName()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void continueMigration(GetVmRuntimeRequest request, StreamObserver<MigrationState> observer) {
        reply(() -> runner.continueMigration(request.getName()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void queryMigration(GetVmRuntimeRequest request, StreamObserver<MigrationState> observer) {
        reply(() -> runner.queryMigration(request.getName()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void cancelMigration(GetVmRuntimeRequest request, StreamObserver<VmRuntime> observer) {
        reply(() -> runner.cancelMigration(request.getName()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void pauseVm(GetVmRuntimeRequest request, StreamObserver<VmRuntime> observer) {
        reply(() -> runner.pause(request.getName()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void continueVm(GetVmRuntimeRequest request, StreamObserver<VmRuntime> observer) {
        reply(() -> runner.resume(request.getName()), VmRunnerProtos::toProto, observer);
    }

    @Override
    public void abortIncoming(GetVmRuntimeRequest request, StreamObserver<AbortIncomingResponse> observer) {
        reply(() -> runner.abortIncoming(request.getName()), VmRunnerProtos::toProto, observer);
    }

    /** Streams the VM's events until the caller cancels or the VM exits. */
    @Override
    public void watchVm(GetVmRuntimeRequest request, StreamObserver<VmEvent> observer) {
        ServerCallStreamObserver<VmEvent> call = (ServerCallStreamObserver<VmEvent>) observer;
        Runnable[] unwatch = new Runnable[1];
        try {
            unwatch[0] = runner.watch(request.getName(), event -> {
                // Events come from QMP's reader and from the runner's own threads: one at a time onto the stream.
                synchronized (call) {
                    if (call.isCancelled()) {
                        return;
                    }
                    call.onNext(VmRunnerProtos.toProto(event));
                    if (event.event().equals(io.heliotrope.scheduler.runner.VmEvent.EXITED)) {
                        call.onCompleted();
                        if (unwatch[0] != null) {
                            unwatch[0].run();
                        }
                    }
                }
            });
        } catch (RuntimeException e) {
            observer.onError(GrpcErrors.toStatus(e));
            return;
        }
        call.setOnCancelHandler(unwatch[0]);
    }

    /** The first input names the VM and the offset; every input's bytes are typed. See {@link ConsoleCall}. */
    @Override
    public StreamObserver<ConsoleInput> console(StreamObserver<ConsoleOutput> observer) {
        return new ConsoleCall(runner, (ServerCallStreamObserver<ConsoleOutput>) observer);
    }
}
