package io.heliotrope.controller.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.JsonFormat;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.http.GetServer;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageLocality;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static io.heliotrope.controller.http.SampleCluster.DEMO;
import static io.heliotrope.controller.http.SampleCluster.VIRGINIA;
import static org.assertj.core.api.Assertions.assertThat;

class TestStatusHttpServer {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newHttpClient();
    private final TestingStatusSource source = new TestingStatusSource();
    private GetServer server;

    @BeforeEach
    void start() throws IOException {
        source.set(SampleCluster.status(VIRGINIA, 3, 1 << 20), List.of(SampleCluster.locality()));
        server = StatusHttpServer.start(new InetSocketAddress("127.0.0.1", 0), source.source(), () -> "heliotrope_controller_sites_up 2.0\n");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void statusIsTheClusterInProtobufJson() throws Exception {
        HttpResponse<String> response = get("/api/status");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        ClusterStatus.Builder parsed = ClusterStatus.newBuilder();
        JsonFormat.parser().merge(response.body(), parsed);
        assertThat(parsed.clearGeneratedEpochMillis().build()).isEqualTo(SampleCluster.status(VIRGINIA, 3, 1 << 20));

        JsonNode json = JSON.readTree(response.body());
        assertThat(json.at("/generatedEpochMillis").asLong()).isPositive();
        assertThat(json.at("/sites/0/site/name").asText()).isEqualTo(VIRGINIA);
        assertThat(json.at("/sites/0/lastSeenEpochMillis").asText()).isEqualTo(Long.toString(SampleCluster.LAST_SEEN));
        assertThat(json.at("/sites/1/up").isBoolean()).as("false is written out too").isTrue();
        assertThat(json.at("/sites/1/up").asBoolean()).isFalse();
        assertThat(json.at("/images/0/status/lease/holder").asText()).isEqualTo(VIRGINIA);
        assertThat(json.at("/images/0/status/config/mode").asText()).isEqualTo("PROPAGATION_MODE_PROACTIVE");
        assertThat(json.at("/rtt/rows/0/peers/0/rttMicros").asText()).isEqualTo("75200");
    }

    @Test
    void vmsAreTheirStateDisksAndMigrationsInJson() throws Exception {
        source.set(SampleCluster.vms(2_000));

        HttpResponse<String> response = get("/api/vms");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        JsonNode json = JSON.readTree(response.body());
        assertThat(json.at("/generatedEpochMillis").asLong()).isPositive();
        assertThat(json.at("/vms/1/name").asText()).isEqualTo("web");
        assertThat(json.at("/vms/1/state").asText()).isEqualTo("running");
        assertThat(json.at("/vms/1/disks/0/holder").asText()).isEqualTo(VIRGINIA);
        assertThat(json.at("/vms/1/disks/0/epoch").asLong()).isEqualTo(3);
        assertThat(json.at("/vms/1/runtimes/0/incoming").asBoolean()).isTrue();
        assertThat(json.at("/inFlight/0/ramSentPercent").asDouble()).isEqualTo(75);
        assertThat(json.at("/inFlight/0/stale").asBoolean()).isFalse();
        assertThat(json.at("/history/1/downtimeMicros").asLong()).isEqualTo(170_000);

        source.failWith(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached"));
        assertError(get("/api/vms"), 503, ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached");
    }

    @Test
    void applicationsAreTheirVmsAndDecisionsInJson() throws Exception {
        source.set(SampleCluster.applications(2_000));

        HttpResponse<String> response = get("/api/applications");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode json = JSON.readTree(response.body());
        assertThat(json.at("/generatedEpochMillis").asLong()).isPositive();
        assertThat(json.at("/applications/1/name").asText()).isEqualTo("zk");
        assertThat(json.at("/applications/1/vms/0/site").asText()).isEqualTo("taiwan");
        assertThat(json.at("/applications/1/last/outcome").asText()).isEqualTo("move");
        assertThat(json.at("/applications/1/last/moves/1/vm").asText()).isEqualTo("zk2");
        assertThat(json.at("/decisions/1/bestScore").asDouble()).isEqualTo(-420.5);
        assertThat(json.at("/decisions/0/currentScore").asText()).as("a rejected plan, in valid JSON").isEqualTo("-Infinity");
        assertThat(json.at("/decisions/2/repeats").asInt()).isEqualTo(2);

        source.failWith(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached"));
        assertError(get("/api/applications"), 503, ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached");
    }

    @Test
    void statusOfOneImageOrNotFound() throws Exception {
        JsonNode demo = JSON.readTree(get("/api/status?image=" + DEMO).body());
        assertThat(demo.at("/images").size()).isEqualTo(1);

        assertError(get("/api/status?image=nope"), 404, ErrorCode.IMAGE_NOT_FOUND, "image 'nope' does not exist");
    }

    @Test
    void localityAsksForTheRegionsGivenOrTheDefault() throws Exception {
        HttpResponse<String> response = get("/api/locality?image=" + DEMO + "&regions=8");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(source.lastRegions()).isEqualTo(8);
        ImageLocality.Builder parsed = ImageLocality.newBuilder();
        JsonFormat.parser().merge(response.body(), parsed);
        assertThat(parsed.build()).isEqualTo(SampleCluster.locality());
        assertThat(JSON.readTree(response.body()).at("/holders").toString()).isEqualTo("[1,1,0,2,0,0,0,0]");

        assertThat(get("/api/locality?image=" + DEMO).statusCode()).isEqualTo(200);
        assertThat(source.lastRegions()).as("GetImageLocality's default").isZero();
    }

    @Test
    void localityRefusesBadParameters() throws Exception {
        assertError(get("/api/locality"), 400, ErrorCode.INVALID_ARGUMENT, "name the image: /api/locality?image=NAME");
        assertError(get("/api/locality?image=" + DEMO + "&regions=many"), 400, ErrorCode.INVALID_ARGUMENT,
                "regions must be a whole number, not 'many'");
        assertError(get("/api/locality?image=" + DEMO + "&regions=5000"), 400, ErrorCode.INVALID_ARGUMENT,
                "1 to 4096 regions (0 for the default), not 5000");
        assertError(get("/api/locality?image=nope"), 404, ErrorCode.IMAGE_NOT_FOUND, "image 'nope' does not exist");
    }

    @Test
    void aControllerWithoutZooKeeperIs503AndABugIs500() throws Exception {
        source.failWith(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached"));
        assertError(get("/api/status"), 503, ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached");
        assertError(get("/api/locality?image=" + DEMO), 503, ErrorCode.PEER_UNAVAILABLE, "ZooKeeper cannot be reached");

        source.failWith(new IllegalStateException("a bug"));
        HttpResponse<String> bug = get("/api/status");
        assertThat(bug.statusCode()).isEqualTo(500);
        assertThat(JSON.readTree(bug.body()).at("/error").asText()).isEqualTo("INTERNAL");
        assertThat(JSON.readTree(bug.body()).at("/message").asText()).isEqualTo("internal error; the controller's log has the details");
    }

    @Test
    void anAnswerThatTakesLongerThan3SecondsIs503() throws Exception {
        source.hang();
        long start = System.nanoTime();

        assertError(get("/api/status"), 503, ErrorCode.PEER_UNAVAILABLE, "no answer within 3 s: ZooKeeper is slow or out of reach of the controller");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(10));
    }

    @Test
    void metricsAreTheSuppliersPrometheusText() throws Exception {
        HttpResponse<String> response = get("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.body()).isEqualTo("heliotrope_controller_sites_up 2.0\n");
    }

    @Test
    void servesThePageItsScriptAndStyle() throws Exception {
        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body()).contains("<table id=\"sites\">", "<script src=\"status.js\" defer></script>");

        assertThat(get("/status.js").headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
        assertThat(get("/status.css").headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
        assertThat(get("/index.html").statusCode()).isEqualTo(404);
    }

    private void assertError(HttpResponse<String> response, int status, ErrorCode code, String message) throws IOException {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        JsonNode json = JSON.readTree(response.body());
        assertThat(json.at("/error").asText()).isEqualTo(code.name());
        assertThat(json.at("/message").asText()).isEqualTo(message);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
