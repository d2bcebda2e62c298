package io.heliotrope.storage.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static java.util.Objects.requireNonNull;

/** Serves the Prometheus text format on {@code /metrics}. */
final class MetricsHttpServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "metrics-http"));

    MetricsHttpServer(InetSocketAddress address, PrometheusMeterRegistry registry) throws IOException {
        requireNonNull(registry, "registry is null");
        server = HttpServer.create(address, 16);
        server.createContext("/metrics", exchange -> respond(exchange, registry));
        server.setExecutor(executor);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
