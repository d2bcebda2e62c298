package io.heliotrope.controller.http;

import io.heliotrope.http.GetHandler;
import io.heliotrope.http.Reply;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * The status page: static HTML, CSS and JavaScript from the classpath (no framework, no
 * CDN) that poll the JSON API and draw the cluster. Read once, at start.
 */
final class StatusPage {
    private static final Map<String, String> FILES = Map.of(
            "/", "index.html",
            "/status.css", "status.css",
            "/status.js", "status.js");

    private StatusPage() {}

    static Map<String, GetHandler> routes() throws IOException {
        Map<String, GetHandler> routes = new HashMap<>();
        for (Map.Entry<String, String> file : FILES.entrySet()) {
            Reply reply = new Reply(200, contentType(file.getValue()), read(file.getValue()));
            routes.put(file.getKey(), request -> reply);
        }
        return routes;
    }

    private static byte[] read(String name) throws IOException {
        try (InputStream in = StatusPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("the status page's " + name + " is missing from the classpath");
            }
            return in.readAllBytes();
        }
    }

    private static String contentType(String name) {
        String extension = name.substring(name.lastIndexOf('.') + 1);
        return switch (extension) {
            case "html" -> "text/html; charset=utf-8";
            case "css" -> "text/css; charset=utf-8";
            case "js" -> "text/javascript; charset=utf-8";
            default -> throw new IllegalArgumentException("no content type for " + name);
        };
    }
}
