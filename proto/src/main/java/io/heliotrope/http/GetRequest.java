package io.heliotrope.http;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** A GET request: its path and its query's parameters, decoded (the first of a repeated name counts). */
public record GetRequest(String path, Map<String, String> parameters) {
    public GetRequest {
        requireNonNull(path, "path is null");
        parameters = Map.copyOf(parameters);
    }

    public static GetRequest of(URI uri) {
        Map<String, String> parameters = new LinkedHashMap<>();
        String query = uri.getRawQuery();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                String name = decode(equals < 0 ? pair : pair.substring(0, equals));
                parameters.putIfAbsent(name, equals < 0 ? "" : decode(pair.substring(equals + 1)));
            }
        }
        return new GetRequest(uri.getPath(), parameters);
    }

    /** The parameter's value, or {@code otherwise} when the query has none of that name. */
    public String parameter(String name, String otherwise) {
        return parameters.getOrDefault(name, otherwise);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
