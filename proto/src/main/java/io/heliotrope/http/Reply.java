package io.heliotrope.http;

import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/** What a {@link GetServer} sends back: a status, a content type and a body. */
public record Reply(int status, String contentType, byte[] body) {
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    public static final String JSON = "application/json; charset=utf-8";
    public static final String PLAIN_TEXT = "text/plain; charset=utf-8";

    public Reply {
        requireNonNull(contentType, "contentType is null");
        requireNonNull(body, "body is null");
    }

    public static Reply of(int status, String contentType, String body) {
        return new Reply(status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Prometheus' text exposition format, as a scrape returns it. */
    public static Reply prometheus(String scrape) {
        return of(200, PROMETHEUS_TEXT, scrape);
    }
}
