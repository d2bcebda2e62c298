package io.heliotrope.controller.http;

import io.heliotrope.http.GetHandler;
import io.heliotrope.http.GetServer;
import io.heliotrope.http.Reply;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The controller's status port: Prometheus metrics on {@code /metrics}, the cluster as JSON
 * on {@code /api/status}, {@code /api/locality}, {@code /api/vms} and {@code /api/applications} (see {@link StatusApi}), and the live
 * status page on {@code /}.
 */
public final class StatusHttpServer {
    private static final int THREADS = 2;

    private StatusHttpServer() {}

    /** Listens on {@code address} (port 0 picks one) until the server returned is closed. */
    public static GetServer start(InetSocketAddress address, StatusSource source, Supplier<String> metrics) throws IOException {
        StatusApi api = new StatusApi(source);
        Map<String, GetHandler> routes = new HashMap<>(StatusPage.routes());
        routes.put("/metrics", request -> Reply.prometheus(metrics.get()));
        routes.put("/api/status", api::status);
        routes.put("/api/locality", api::locality);
        routes.put("/api/vms", api::vms);
        routes.put("/api/applications", api::applications);
        return GetServer.start(address, "controller-http", THREADS, routes);
    }
}
