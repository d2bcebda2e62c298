package io.heliotrope.scheduler.runner.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.storage.v1.ConsoleInput;
import io.heliotrope.proto.storage.v1.ConsoleOutput;
import io.heliotrope.scheduler.runner.QemuRunner;
import io.heliotrope.scheduler.runner.VmConsole;

/**
 * One Console call: its first input opens the VM's {@link VmConsole}, whose output goes out
 * as the call is ready for it (gRPC's outbound flow control: {@code isReady} and the
 * on-ready handler), so that a slow reader holds back the reading of console.log rather than
 * buffering it. The call ends with the console (QEMU exited here), or when the caller
 * cancels; a caller that half-closes keeps reading.
 */
final class ConsoleCall implements StreamObserver<ConsoleInput>, VmConsole.Sink {
    private final QemuRunner runner;
    private final ServerCallStreamObserver<ConsoleOutput> call;
    private volatile VmConsole console;

    ConsoleCall(QemuRunner runner, ServerCallStreamObserver<ConsoleOutput> call) {
        this.runner = runner;
        this.call = call;
        // Handlers can only be set before the service returns its observer.
        call.setOnReadyHandler(() -> {
            VmConsole open = console;
            if (open != null) {
                open.pump();
            }
        });
        call.setOnCancelHandler(this::close);
    }

    @Override
    public void onNext(ConsoleInput input) {
        VmConsole open = console;
        if (open == null) {
            try {
                open = runner.console(input.getName(), input.getOffset(), input.getFromLaunch(), this);
            } catch (RuntimeException e) {
                call.onError(GrpcErrors.toStatus(e));
                return;
            }
            console = open;
            // A ready signal that came before the console was set was not passed on.
            open.pump();
        }
        if (!input.getInput().isEmpty()) {
            open.type(input.getInput().toByteArray());
        }
    }

    @Override
    public void onError(Throwable t) {
        close();
    }

    @Override
    public void onCompleted() {
        // Half-closed: nothing more to type; the output goes on.
    }

    @Override
    public boolean ready() {
        return call.isReady() && !call.isCancelled();
    }

    @Override
    public void data(long offset, byte[] bytes) {
        call.onNext(ConsoleOutput.newBuilder().setOffset(offset).setData(UnsafeByteOperations.unsafeWrap(bytes)).build());
    }

    @Override
    public void ended(String reason) {
        call.onNext(ConsoleOutput.newBuilder().setData(ByteString.EMPTY).setEnded(reason).build());
        call.onCompleted();
    }

    private void close() {
        VmConsole open = console;
        if (open != null) {
            open.close();
        }
    }
}
