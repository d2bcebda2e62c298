package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/** A port another process holds: helio up, serve and controller name the port, what holds it and the option that moves it, in one line. */
class HelioPortInUseIT {
    private static final Pattern VIRGINIA = Pattern.compile("virginia : nbd://127\\.0\\.0\\.1:(\\d+)/demo +gRPC 127\\.0\\.0\\.1:(\\d+) ");
    private static final Pattern CONTROLLER = Pattern.compile("controller : 127\\.0\\.0\\.1:(\\d+)");

    @Test
    void serversNameThePortAndTheHelioUpHoldingIt(@TempDir Path dataDir, @TempDir Path other) {
        List<String> command = Tools.helioCommand(List.of("-Xmx1g"), "up", "--data-dir", dataDir.toString(),
                "--nbd-port", "0", "--grpc-port", "0", "--metrics-port", "0", "--controller-port", "0");

        try (ChildProcess up = ChildProcess.start("helio-up", command)) {
            Matcher virginia = up.awaitOutput(VIRGINIA, Duration.ofSeconds(60));
            String nbd = virginia.group(1);
            String grpc = virginia.group(2);
            String controller = up.awaitOutput(CONTROLLER, Duration.ofSeconds(10)).group(1);
            String holder = "probably by another helio up (pid " + up.pid() + ": java ... helio up --data-dir " + dataDir;

            assertInUse(helio("up", "--data-dir", other.toString(), "--nbd-port", nbd, "--grpc-port", "0", "--metrics-port", "0", "--controller-port", "0"),
                    "port " + nbd + " (virginia NBD) is in use, " + holder, "--nbd-port");
            assertInUse(helio("serve", "--data-dir", other.toString(), "--site", "b", "--nbd-port", "0", "--grpc-port", grpc, "--metrics-port", "0"),
                    "port " + grpc + " (b gRPC) is in use, " + holder, "--grpc-port");
            assertInUse(helio("controller", "--zookeeper", "127.0.0.1:1", "--grpc-port", controller),
                    "port " + controller + " (controller gRPC) is in use, " + holder, "--grpc-port");

            assertThat(other).as("nothing started, no log written").isEmptyDirectory();
            ok("nbdinfo", "nbd://127.0.0.1:" + nbd + "/demo");
            assertThat(up.stop()).as("stopped within 20 s of SIGTERM; output:%n%s", up.output()).isTrue();
        }
    }

    @Test
    void anyOtherHolderIsNamedByItsCommand() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(taken.getLocalPort());

            assertInUse(helio("controller", "--zookeeper", "127.0.0.1:1", "--grpc-port", port),
                    "port " + port + " (controller gRPC) is in use, probably by java (pid " + ProcessHandle.current().pid() + ": java ", "--grpc-port");
        }
    }

    private static void assertInUse(Tools.Result result, String start, String option) {
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
        assertThat(result.stdout()).as(result.toString()).isEmpty();
        assertThat(result.stderrLines()).as(result.toString()).singleElement().asString()
                .startsWith("helio: " + start)
                .endsWith("; stop it or pick other ports with " + option);
    }
}
