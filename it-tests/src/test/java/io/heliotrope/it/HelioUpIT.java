package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code helio up}, the embedded default a new user runs first: two sites behind an emulated WAN. */
class HelioUpIT {
    private static final Pattern DEMO_URL = Pattern.compile("demo image : (nbd://127\\.0\\.0\\.1:\\d+/demo)\\n");
    private static final Pattern DEMO_OVER_TLS = Pattern.compile("over TLS   : (nbds://127\\.0\\.0\\.1:\\d+/demo\\?tls-certificates=\\S+) ");
    private static final Pattern TAIWAN_URL = Pattern.compile("taiwan +: (nbd://127\\.0\\.0\\.1:\\d+/demo) ");
    private static final Pattern METRICS_URL = Pattern.compile("metrics +: (http://\\S+/metrics)\\n");
    private static final Pattern STATUS_PAGE = Pattern.compile("status +: (http://127\\.0\\.0\\.1:\\d+/) ");
    private static final Pattern LOG_FILE = Pattern.compile("log +: (\\S+)\\n");
    /** A controller of {@code --controllers N} beside helio up's own: where it listens and its pid. */
    private static final Pattern CHILD_CONTROLLER = Pattern.compile(" (\\S+) is pid (\\d+), log ");
    /** A library's INFO event in the log file: its message. */
    private static final Pattern LIBRARY_INFO = Pattern.compile("(?m)^\\S+ \\S+ INFO  \\[[^\\]]*\\] (?!io\\.heliotrope\\.)\\S+ - (.{20,})$");

    @Test
    void upServesTheDemoImageAtBothSitesAndMetrics(@TempDir Path dataDir) throws Exception {
        List<String> command = Tools.helioCommand(List.of("-Xmx1g"), "up", "--data-dir", dataDir.toString(),
                "--nbd-port", "0", "--grpc-port", "0", "--metrics-port", "0", "--controller-port", "0", "--status-port", "0");

        try (ChildProcess up = ChildProcess.start("helio-up", command)) {
            String demo = up.awaitOutput(DEMO_URL, Duration.ofSeconds(60)).group(1);
            String metricsUrl = up.awaitOutput(METRICS_URL, Duration.ofSeconds(10)).group(1);

            assertThat(ok("nbdinfo", demo).stdout()).as(up.output()).containsPattern("export-size: 268435456 ");
            String demoOverTls = up.awaitOutput(DEMO_OVER_TLS, Duration.ofSeconds(10)).group(1);
            assertThat(ok("nbdinfo", demoOverTls).stdout()).as("NBD over TLS with the certificates helio up made").contains("with TLS")
                    .containsPattern("export-size: 268435456 ");
            HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(metricsUrl)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
            assertThat(metrics.body()).contains("# TYPE heliotrope_nbd_requests_total counter", "heliotrope_nbd_requests_total{");
            String statusPage = up.awaitOutput(STATUS_PAGE, Duration.ofSeconds(10)).group(1);
            HttpResponse<String> status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(statusPage + "api/status?image=demo")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(status.statusCode()).as(status.body()).isEqualTo(200);
            assertThat(status.body()).contains("\"name\": \"demo\"", "\"name\": \"virginia\"", "\"name\": \"taiwan\"");
            String taiwan = up.awaitOutput(TAIWAN_URL, Duration.ofSeconds(10)).group(1);
            ok("qemu-io", "-f", "raw", "-c", "write -P 0x5a 1M 64k", demo);
            Await.until("the demo image closed at virginia", Duration.ofSeconds(60), () -> up.output().contains("demo: closed"));
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 1M 64k", taiwan);
            assertThat(ok("nbdinfo", "--map=heliotrope:locality", taiwan).stdout()).containsPattern("1048576 +65536 +0\\n");
            assertThat(up.stop()).as("stopped within 20 s of SIGTERM; output:%n%s", up.output()).isTrue();
        }
    }

    @Test
    void sitesListenOnlyOnceTheDemoExistsAndTheLibrariesLogToTheFileOnly(@TempDir Path dataDir) throws Exception {
        int nbd = Ports.freeRun(2);
        List<String> command = Tools.helioCommand(List.of("-Xmx1g"), "up", "--data-dir", dataDir.toString(),
                "--nbd-port", Integer.toString(nbd), "--grpc-port", "0", "--metrics-port", "0", "--controller-port", "0", "--status-port", "0");

        try (ChildProcess up = ChildProcess.start("helio-up", command)) {
            for (int port : new int[] {nbd, nbd + 1}) {
                Await.until("port " + port + " accepts", Duration.ofSeconds(60), () -> accepts(up, port));
                assertThat(ok("nbdinfo", "nbd://127.0.0.1:" + port + "/demo").stdout()).as(up.output()).containsPattern("export-size: 268435456 ");
            }
            Path log = Path.of(up.awaitOutput(LOG_FILE, Duration.ofSeconds(60)).group(1));
            String console = up.output();
            String file = Files.readString(log);

            assertThat(log).isEqualTo(dataDir.resolve("logs").resolve("helio-up.log"));
            assertThat(console.indexOf("Heliotrope is up")).as("banner after both sites serve:%n%s", console)
                    .isGreaterThan(console.indexOf("StorageServer - site taiwan: NBD on"));
            assertThat(file).contains("] io.heliotrope.storage.server.StorageServer - site taiwan: NBD on",
                    "] org.apache.zookeeper.server.ZooKeeperServer - ", "] org.apache.curator.framework.imps.CuratorFrameworkImpl - ");
            List<String> libraryInfo = LIBRARY_INFO.matcher(file).results().map(info -> info.group(1)).toList();
            assertThat(libraryInfo).hasSizeGreaterThan(50);
            assertThat(libraryInfo).as("the libraries' INFO events on the console").noneMatch(console::contains);
            assertThat(up.stop()).as("stopped within 20 s of SIGTERM; output:%n%s", up.output()).isTrue();
        }
    }

    /** The drill of docs/faults.md: the controller the sites use first killed, the demo image is read and written as before. */
    @Test
    void upRunsThreeControllersAndTheSitesOutliveTheFirstOne(@TempDir Path dataDir) throws Exception {
        List<String> command = Tools.helioCommand(List.of("-Xmx1g"), "up", "--data-dir", dataDir.toString(), "--controllers", "3",
                "--nbd-port", "0", "--grpc-port", "0", "--metrics-port", "0", "--controller-port", "0", "--status-port", "0");

        try (ChildProcess up = ChildProcess.start("helio-up", command)) {
            String demo = up.awaitOutput(DEMO_URL, Duration.ofSeconds(120)).group(1);
            up.awaitOutput(Pattern.compile("Press Ctrl-C to stop"), Duration.ofSeconds(10));
            List<MatchResult> children = CHILD_CONTROLLER.matcher(up.output()).results().toList();
            assertThat(children).as("the other controllers in the banner:%n%s", up.output()).hasSize(2);
            ok("qemu-io", "-f", "raw", "-c", "write -P 0x5a 1M 64k", demo);

            ok("kill", "-9", children.get(0).group(2));
            Await.until("the sites moved to the next controller", Duration.ofSeconds(60),
                    () -> up.output().contains("stopped answering; calls go to controller at "));
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 1M 64k", "-c", "write -P 0x6b 2M 64k", demo);
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x6b 2M 64k", demo);
            assertThat(up.stop()).as("stopped within 20 s of SIGTERM; output:%n%s", up.output()).isTrue();
        }
    }

    private static boolean accepts(ChildProcess up, int port) {
        assertThat(up.isAlive()).as("helio up is running; its output:%n%s", up.output()).isTrue();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
