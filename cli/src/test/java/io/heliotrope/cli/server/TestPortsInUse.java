package io.heliotrope.cli.server;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPortsInUse {
    private static final ServerPort NBD = new ServerPort("virginia NBD", "127.0.0.1", 10809, "--nbd-port");

    @Test
    void namesAnotherHelioByItsCommandWithoutTheJvmOptions() {
        PortHolders.Holder up = new PortHolders.Holder(4242,
                List.of("/usr/lib/jvm/java-17/bin/java", "-Xmx1g", "-cp", "cli.jar:lib/*", "io.heliotrope.cli.Helio", "up", "--data-dir", "/var/tmp/up"));

        assertThat(PortsInUse.message(NBD, Optional.of(up))).isEqualTo("port 10809 (virginia NBD) is in use, probably by another helio up "
                + "(pid 4242: java ... helio up --data-dir /var/tmp/up); stop it or pick other ports with --nbd-port");
    }

    @Test
    void namesAnyOtherProcessByItsCommandOnOneShortLine() {
        PortHolders.Holder script = new PortHolders.Holder(77, List.of("/usr/bin/python3", "-c", "import socket\ns = socket.socket()"));
        PortHolders.Holder verbose = new PortHolders.Holder(78, List.of("server", "x".repeat(300)));

        assertThat(PortsInUse.message(NBD, Optional.of(script))).isEqualTo("port 10809 (virginia NBD) is in use, probably by python3 "
                + "(pid 77: python3 -c import socket s = socket.socket()); stop it or pick other ports with --nbd-port");
        assertThat(PortsInUse.message(NBD, Optional.of(verbose))).isEqualTo("port 10809 (virginia NBD) is in use, probably by server (pid 78: "
                + ("server " + "x".repeat(300)).substring(0, 117) + "...); stop it or pick other ports with --nbd-port");
        assertThat(PortsInUse.message(NBD, Optional.of(new PortHolders.Holder(5, List.of()))))
                .isEqualTo("port 10809 (virginia NBD) is in use, probably by pid 5; stop it or pick other ports with --nbd-port");
    }

    @Test
    void saysJustInUseWhenTheHolderIsUnknown() {
        assertThat(PortsInUse.message(NBD, Optional.empty()))
                .isEqualTo("port 10809 (virginia NBD) is in use; stop what holds it or pick other ports with --nbd-port");
    }

    @Test
    void checkFailsOnATakenPortAndPassesOnceItIsFree() throws IOException {
        ServerPort grpc;
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            grpc = new ServerPort("local gRPC", "127.0.0.1", taken.getLocalPort(), "--grpc-port");
            List<ServerPort> ports = List.of(new ServerPort("local NBD", "127.0.0.1", 0, "--nbd-port"), grpc);

            // This process holds it: a holder that is not another process goes unnamed.
            assertThatThrownBy(() -> PortsInUse.check(ports))
                    .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                    .hasMessage("port " + grpc.port() + " (local gRPC) is in use; stop what holds it or pick other ports with --grpc-port");
        }
        PortsInUse.check(List.of(grpc));
    }

    @Test
    void explainsABindFailureByThePortThatIsTaken() throws IOException {
        Exception failure = new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot start site virginia: bind(..) failed with error(-98): Address already in use",
                new IOException("Failed to bind to address /127.0.0.1:7410", new BindException("Address already in use")));
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<ServerPort> ports = List.of(new ServerPort("virginia NBD", "127.0.0.1", 0, "--nbd-port"),
                    new ServerPort("virginia metrics", "127.0.0.1", taken.getLocalPort(), "--metrics-port"));

            assertThat(PortsInUse.explain(failure, ports)).hasMessageStartingWith("port " + taken.getLocalPort() + " (virginia metrics) is in use");
            IOException other = new IOException("Connection refused");
            assertThat(PortsInUse.explain(other, ports)).as("not a bind failure").isSameAs(other);
        }
    }

    @Test
    void leavesABindFailureAsItIsWhenNoPortIsTakenAnyMore() throws IOException {
        int released;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            released = gone.getLocalPort();
        }
        Exception failure = new IOException("Failed to bind", new BindException("Address already in use"));

        assertThat(PortsInUse.explain(failure, List.of(new ServerPort("controller gRPC", "127.0.0.1", released, "--grpc-port")))).isSameAs(failure);
    }
}
