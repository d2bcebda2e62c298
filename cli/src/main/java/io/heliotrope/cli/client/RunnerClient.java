package io.heliotrope.cli.client;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.ConsoleInput;
import io.heliotrope.proto.storage.v1.ConsoleOutput;
import io.heliotrope.proto.storage.v1.GetVmRuntimeRequest;
import io.heliotrope.proto.storage.v1.ListVmRuntimesRequest;
import io.heliotrope.proto.storage.v1.StartVmRequest;
import io.heliotrope.proto.storage.v1.StopVmRequest;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;
import io.heliotrope.proto.storage.v1.VmRuntime;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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

    public List<VmRuntime> list() {
        return call(() -> runner().listVms(ListVmRuntimesRequest.getDefaultInstance()).getVmsList());
    }

    /**
     * Attaches to the VM's serial console here: what it prints goes to {@code out}, from
     * {@code offset} of its console.log (negative: that many bytes before the end) or, with
     * {@code fromLaunch}, from where its current QEMU began.
     */
    public Console console(String name, long offset, boolean fromLaunch, OutputStream out) {
        Console console = new Console(out);
        console.input = VmRunnerServiceGrpc.newStub(channel).console(console);
        console.send(ConsoleInput.newBuilder().setName(name).setOffset(offset).setFromLaunch(fromLaunch).build());
        return console;
    }

    /** One attachment to a console: its output flows until the QEMU exits at the site, or {@link #close}. */
    public final class Console implements StreamObserver<ConsoleOutput>, AutoCloseable {
        private final OutputStream out;
        private final CompletableFuture<String> ended = new CompletableFuture<>();
        private StreamObserver<ConsoleInput> input;
        private String reason = "";

        private Console(OutputStream out) {
            this.out = out;
        }

        /** Sends what was typed to the guest's serial port. */
        public void type(byte[] bytes, int length) {
            send(ConsoleInput.newBuilder().setInput(ByteString.copyFrom(bytes, 0, length)).build());
        }

        /** Waits for the end: why the console ended at this site (the QEMU's exit reason). */
        public String awaitEnd() throws InterruptedException {
            try {
                return ended.get();
            } catch (ExecutionException e) {
                // onNext and onError complete it with runtime exceptions only.
                throw (RuntimeException) e.getCause();
            }
        }

        private synchronized void send(ConsoleInput message) {
            input.onNext(message);
        }

        @Override
        public void onNext(ConsoleOutput output) {
            try {
                output.getData().writeTo(out);
                out.flush();
            } catch (IOException e) {
                ended.completeExceptionally(new UncheckedIOException(e));
            }
            if (!output.getEnded().isEmpty()) {
                reason = output.getEnded();
            }
        }

        @Override
        public void onError(Throwable failure) {
            ended.completeExceptionally(translate(failure));
        }

        @Override
        public void onCompleted() {
            ended.complete(reason);
        }

        @Override
        public synchronized void close() {
            if (!ended.isDone()) {
                input.onError(Status.CANCELLED.withDescription("helio detached").asRuntimeException());
            }
        }
    }

    private VmRunnerServiceGrpc.VmRunnerServiceBlockingStub runner() {
        return VmRunnerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
