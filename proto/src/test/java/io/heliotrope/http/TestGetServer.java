package io.heliotrope.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class TestGetServer {
    private final HttpClient client = HttpClient.newHttpClient();
    private GetServer server;

    @BeforeEach
    void start() throws IOException {
        server = GetServer.start(new InetSocketAddress("127.0.0.1", 0), "test-http", 1, Map.of(
                "/echo", request -> Reply.of(200, Reply.PLAIN_TEXT, new TreeMap<>(request.parameters()).toString()),
                "/metrics", request -> Reply.prometheus("up 1\n"),
                "/broken", request -> {
                    throw new IllegalStateException("a bug");
                }));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void answersTheHandlerOfThePathWithItsParametersDecoded() throws Exception {
        HttpResponse<String> response = send("GET", "/echo?name=a%20b&empty&name=second&x=%C3%A9");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue(Reply.PLAIN_TEXT);
        assertThat(response.body()).isEqualTo("{empty=, name=a b, x=é}");
    }

    @Test
    void servesPrometheusText() throws Exception {
        HttpResponse<String> response = send("GET", "/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.body()).isEqualTo("up 1\n");
    }

    @Test
    void anUnknownPathIs404AnotherMethod405AndAFailingHandler500() throws Exception {
        HttpResponse<String> unknown = send("GET", "/echo/more");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).isEqualTo("no such page: /echo/more\n");

        HttpResponse<String> post = send("POST", "/echo");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET");

        HttpResponse<String> broken = send("GET", "/broken");
        assertThat(broken.statusCode()).isEqualTo(500);
        assertThat(broken.body()).isEqualTo("internal error; the server's log has the details\n");
        assertThat(send("GET", "/metrics").statusCode()).as("still serving").isEqualTo(200);
    }

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
