package io.heliotrope.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.heliotrope.concurrent.BoundedExecutors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * A small HTTP/1.1 server, on the JDK's {@code com.sun.net.httpserver}, for a process's own
 * endpoints (metrics, status): GET only, one handler per exact path, run on named threads
 * the server owns. A path without a handler is a 404, another method a 405, and a handler
 * that throws a 500 whose details stay in the log.
 */
public final class GetServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GetServer.class);
    private static final int BACKLOG = 16;
    private static final int QUEUED_REQUESTS = 64;

    private final Map<String, GetHandler> routes;
    private final ExecutorService executor;
    private final HttpServer server;

    private GetServer(InetSocketAddress address, String name, int threads, Map<String, GetHandler> routes) throws IOException {
        this.routes = Map.copyOf(routes);
        this.executor = BoundedExecutors.fixed(name, threads, QUEUED_REQUESTS);
        try {
            server = HttpServer.create(address, BACKLOG);
        } catch (IOException e) {
            executor.shutdownNow();
            throw e;
        }
        server.createContext("/", this::respond);
        server.setExecutor(executor);
        server.start();
    }

    /**
     * Listens on {@code address} (port 0 picks one) and serves {@code routes}, path to
     * handler, on {@code threads} threads named {@code name-N}.
     */
    public static GetServer start(InetSocketAddress address, String name, int threads, Map<String, GetHandler> routes) throws IOException {
        return new GetServer(address, name, threads, routes);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void respond(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            GetRequest request = GetRequest.of(exchange.getRequestURI());
            GetHandler handler = routes.get(request.path());
            Reply reply = handler == null ? Reply.of(404, Reply.PLAIN_TEXT, "no such page: " + request.path() + "\n") : handle(handler, request);
            exchange.getResponseHeaders().set("Content-Type", reply.contentType());
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply.body());
            }
        }
    }

    private static Reply handle(GetHandler handler, GetRequest request) {
        try {
            return handler.handle(request);
        } catch (IOException | RuntimeException e) {
            log.error("internal error answering GET {}", request.path(), e);
            return Reply.of(500, Reply.PLAIN_TEXT, "internal error; the server's log has the details\n");
        }
    }

    /** Stops at once: requests in progress are cut off. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
