package io.heliotrope.it;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One {@code helio controller} in a child JVM on a fixed loopback port, with a gRPC
 * channel to it. {@link #kill9()} crashes it; {@link #restart()} brings it back on the
 * same port with a new channel. Closing stops it with SIGTERM and fails if it did not
 * stop in time or if it answered a call with an internal error.
 */
final class TestingController implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("controller listening on");
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> JVM_OPTIONS = List.of("-Xmx1g", "-XX:+UseSerialGC");

    private final String name;
    private final int port;
    private final RestartableProcess process;
    private ManagedChannel channel;

    private TestingController(String name, List<String> arguments, int port) {
        this.name = name;
        this.port = port;
        this.process = new RestartableProcess(name,
                () -> ChildProcess.start(name, Tools.helioCommand(JVM_OPTIONS, arguments.toArray(String[]::new))),
                this::awaitListening);
    }

    /** Starts {@code helio controller --zookeeper CONNECT --grpc-port PORT OPTIONS...} and waits until it listens. */
    static TestingController start(String name, String zookeeper, List<String> options) {
        int port = Ports.free(1)[0];
        List<String> arguments = new ArrayList<>(List.of("controller", "--zookeeper", zookeeper, "--grpc-port", Integer.toString(port)));
        arguments.addAll(options);
        TestingController controller = new TestingController(name, arguments, port);
        controller.process.start();
        return controller;
    }

    String name() {
        return name;
    }

    String target() {
        return "127.0.0.1:" + port;
    }

    /** A channel to this controller; a restart replaces it. */
    ManagedChannel channel() {
        return requireNonNull(channel, "controller is not started");
    }

    boolean isRunning() {
        return process.isRunning();
    }

    /** SIGKILL: the controller vanishes mid-call, its ZooKeeper session lingers until it expires. */
    void kill9() {
        process.kill9();
    }

    /** Stops the controller if it runs, then starts it again on the same port. */
    void restart() {
        shutdownChannel();
        process.restart();
    }

    /** Everything the controller printed, across restarts. */
    String log() {
        return process.log();
    }

    @Override
    public void close() {
        shutdownChannel();
        process.close();
        assertThat(log()).as("%s log", name).doesNotContain("internal error");
    }

    private void awaitListening(ChildProcess child) {
        child.awaitOutput(LISTENING, STARTUP_TIMEOUT);
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create()).build();
    }

    private void shutdownChannel() {
        if (channel != null) {
            channel.shutdownNow();
            try {
                channel.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            channel = null;
        }
    }
}
