package io.heliotrope.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One {@code helio serve} site in a child JVM, on ephemeral ports (unless its options give one) and its own data
 * directory. {@link #kill9()} crashes it; {@link #restart()} brings it back on the same
 * data (the ports change). Closing stops it with SIGTERM, fails if it did not stop in
 * time or Netty reported a leak, and removes its directory (data, and the JVM's temp
 * files, which a killed JVM leaves behind: RocksDB unpacks its native library there).
 */
final class TestingSite implements AutoCloseable {
    private static final Pattern SERVING = Pattern.compile(
            "serving nbd://127\\.0\\.0\\.1:(\\d+)/ \\(gRPC (\\d+), metrics (http://\\S+/metrics)\\)");
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> JVM_OPTIONS = List.of("-Xmx1g", "-Dio.netty.leakDetection.level=advanced");

    private final Path root;
    private final Path dataDir;
    private final List<String> serveOptions;
    private final HttpClient http = HttpClient.newHttpClient();
    private final RestartableProcess process;
    private int nbdPort;
    private int grpcPort;
    private String metricsUrl;

    private TestingSite(Path root, Path dataDir, List<String> serveOptions) throws IOException {
        this.root = root;
        this.serveOptions = List.copyOf(serveOptions);
        this.dataDir = dataDir;
        Files.createDirectories(root.resolve("tmp"));
        this.process = new RestartableProcess("site", () -> ChildProcess.start("helio-serve", command()), this::awaitServing);
    }

    /**
     * Starts a site with the RocksDB store in a new temporary data directory; {@code serveOptions}
     * go to {@code helio serve} as well (e.g. {@code --site NAME --controller HOST:PORT}).
     */
    static TestingSite start(String... serveOptions) {
        return start(null, serveOptions);
    }

    /** Starts a site as {@link #start(String...)} does, with its data in {@code dataDir}, which closing leaves in place. */
    static TestingSite startIn(Path dataDir, String... serveOptions) {
        return start(requireNonNull(dataDir, "dataDir is null"), serveOptions);
    }

    private static TestingSite start(Path dataDir, String[] serveOptions) {
        try {
            Path root = Files.createTempDirectory("heliotrope-site-");
            TestingSite site = new TestingSite(root, dataDir == null ? root.resolve("data") : dataDir, List.of(serveOptions));
            try {
                site.process.start();
                return site;
            } catch (RuntimeException | AssertionError e) {
                try {
                    Tools.deleteRecursively(root);
                } catch (IOException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String nbdUri(String image) {
        return "nbd://127.0.0.1:" + nbdPort + "/" + image;
    }

    /** The server's URI without an export name, for {@code nbdinfo --list}. */
    String nbdServerUri() {
        return "nbd://127.0.0.1:" + nbdPort;
    }

    int nbdPort() {
        return nbdPort;
    }

    String grpcTarget() {
        return "127.0.0.1:" + grpcPort;
    }

    String metricsUrl() {
        return metricsUrl;
    }

    Path dataDir() {
        return dataDir;
    }

    /** Runs {@code helio image ARGS --server THIS_SITE}. */
    Tools.Result image(String... args) {
        List<String> command = new ArrayList<>(List.of("image"));
        command.addAll(List.of(args));
        command.add("--server");
        command.add(grpcTarget());
        return Tools.helio(command.toArray(String[]::new));
    }

    /** Creates an image and asserts that it worked. */
    void createImage(String name, String size) {
        image("create", name, "--size", size).assertSuccess();
    }

    String metrics() {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(metricsUrl)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as("GET %s", metricsUrl).isEqualTo(200);
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The value of one sample, e.g. {@code heliotrope_nbd_connections}. */
    double metric(String sample) {
        return sample(sample).orElseThrow(() -> new AssertionError("no sample " + sample + " at " + metricsUrl));
    }

    /** As {@link #metric}, 0 when the site has no such sample yet (a counter made on its first use). */
    double metricOrZero(String sample) {
        return sample(sample).orElse(0);
    }

    private OptionalDouble sample(String sample) {
        return metrics().lines()
                .filter(line -> line.startsWith(sample + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(sample.length() + 1).strip()))
                .findFirst();
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed that was not already durable. */
    void kill9() {
        process.kill9();
    }

    /** Stops the site if it runs, then starts it again on the same data directory. */
    void restart() {
        process.restart();
    }

    /** Everything the site printed, across restarts. */
    String log() {
        return process.log();
    }

    /** The full log the site writes in its data directory (ours from DEBUG), every file of it; empty when there is none. */
    String logFile() {
        Path logs = dataDir.resolve("logs");
        if (!Files.isDirectory(logs)) {
            return "";
        }
        try (Stream<Path> files = Files.list(logs)) {
            StringBuilder text = new StringBuilder();
            for (Path file : files.sorted().toList()) {
                text.append("---- ").append(file).append(" ----\n").append(Files.readString(file));
            }
            return text.toString();
        } catch (IOException e) {
            return "cannot read the log files in " + logs + ": " + e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            process.close();
            assertThat(log()).as("site log").doesNotContain("LEAK:");
        } finally {
            Tools.deleteRecursively(root);
        }
    }

    private List<String> command() {
        List<String> jvmOptions = new ArrayList<>(JVM_OPTIONS);
        jvmOptions.add("-Djava.io.tmpdir=" + root.resolve("tmp"));
        List<String> args = new ArrayList<>(List.of("serve", "--data-dir", dataDir.toString()));
        for (String port : List.of("--nbd-port", "--grpc-port", "--metrics-port")) {
            if (!serveOptions.contains(port)) {
                args.addAll(List.of(port, "0"));
            }
        }
        args.addAll(serveOptions);
        return Tools.helioCommand(jvmOptions, args.toArray(String[]::new));
    }

    private void awaitServing(ChildProcess child) {
        Matcher serving = child.awaitOutput(SERVING, STARTUP_TIMEOUT);
        nbdPort = Integer.parseInt(serving.group(1));
        grpcPort = Integer.parseInt(serving.group(2));
        metricsUrl = serving.group(3);
    }
}
