package io.heliotrope.storage.server;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.grpc.GrpcServers;
import io.heliotrope.proto.storage.v1.ConsoleInput;
import io.heliotrope.proto.storage.v1.ConsoleOutput;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;
import io.heliotrope.scheduler.runner.LaunchRecord;
import io.heliotrope.scheduler.runner.QemuRunner;
import io.heliotrope.scheduler.runner.RunnerConfig;
import io.heliotrope.scheduler.runner.SiteDisks;
import io.heliotrope.scheduler.runner.VmDefinition;
import io.heliotrope.scheduler.runner.VmFiles;
import io.heliotrope.scheduler.runner.grpc.VmRunnerGrpcService;
import io.heliotrope.storage.peer.grpc.PeerGrpcService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** The runner's Console call on a server set up as a site's (its executor, its flow-control window), over loopback. */
class TestVmConsoleOverGrpc {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void aReaderTakingOneMessageAtATimeGetsTheWholeLogThenTheExitReason() throws Exception {
        byte[] log = new byte[4 << 20];
        new Random(7).nextBytes(log);
        VmFiles files = VmFiles.of(dir, "vm1");
        Files.createDirectories(files.dir());
        new LaunchRecord(new VmDefinition("vm1", 64L << 20, 1, List.of(), null, null, null, null), false, -1, 0, 0).write(files.launchRecord());
        Files.write(files.consoleLog(), log);
        Files.writeString(files.dir().resolve("exit-reason"), "guest shut down");

        Console console = serve(call -> call.onNext(ConsoleInput.newBuilder().setName("vm1").build()));
        assertThat(console.ended.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("guest shut down");
        assertThat(console.data.toByteArray()).isEqualTo(log);
    }

    @Test
    void theConsoleOfAnUnknownVmIsNotFound() throws Exception {
        Console console = serve(call -> call.onNext(ConsoleInput.newBuilder().setName("vm2").build()));
        assertThat(console.ended).failsWithin(WAIT).withThrowableOfType(Exception.class)
                .havingCause().matches(e -> Status.fromThrowable(e).getCode() == Status.Code.NOT_FOUND)
                .matches(e -> Status.fromThrowable(e).getDescription().equals("vm vm2 has not run at a"));
    }

    /** Runs one Console call through a real server and client: the client asks for one message at a time. */
    private Console serve(Consumer<StreamObserver<ConsoleInput>> first) throws Exception {
        SiteDisks none = new SiteDisks() {
            @Override
            public InetSocketAddress nbdAddress() {
                return new InetSocketAddress("127.0.0.1", 1);
            }

            @Override
            public CompletableFuture<Void> handover(String image, String toSite, Duration deadline) {
                throw new AssertionError("no handover here");
            }

            @Override
            public CompletableFuture<Void> active(String image) {
                throw new AssertionError("no migration here");
            }
        };
        ExecutorService calls = BoundedExecutors.fixed("test-site-grpc", 2, 64);
        Console console = new Console();
        try (QemuRunner runner = new QemuRunner(new RunnerConfig("a", dir, null, null, null, null, null), none)) {
            Server server = GrpcServers.start(new InetSocketAddress("127.0.0.1", 0), calls, PeerGrpcService.FLOW_CONTROL_WINDOW, new VmRunnerGrpcService(runner));
            ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.getPort(), InsecureChannelCredentials.create()).build();
            try {
                first.accept(VmRunnerServiceGrpc.newStub(channel).console(console));
                console.ended.handle((reason, failure) -> null).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } finally {
                channel.shutdownNow().awaitTermination(WAIT.toSeconds(), TimeUnit.SECONDS);
                GrpcServers.shutdown(server);
                BoundedExecutors.shutdown(calls, WAIT);
            }
        }
        return console;
    }

    private static final class Console implements ClientResponseObserver<ConsoleInput, ConsoleOutput> {
        final ByteArrayOutputStream data = new ByteArrayOutputStream();
        final CompletableFuture<String> ended = new CompletableFuture<>();
        private ClientCallStreamObserver<ConsoleInput> call;

        @Override
        public void beforeStart(ClientCallStreamObserver<ConsoleInput> requests) {
            call = requests;
            requests.disableAutoRequestWithInitial(1);
        }

        @Override
        public void onNext(ConsoleOutput output) {
            assertThat(output.getOffset()).isEqualTo(output.getEnded().isEmpty() ? data.size() : 0);
            data.writeBytes(output.getData().toByteArray());
            if (!output.getEnded().isEmpty()) {
                ended.complete(output.getEnded());
            }
            call.request(1);
        }

        @Override
        public void onError(Throwable t) {
            ended.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            ended.complete(null);
        }
    }
}
