package io.heliotrope.cli.server;

import static java.util.Objects.requireNonNull;

/**
 * A port a server command listens on, for the message when it is taken: what listens
 * there ({@code virginia NBD}) and the option that moves it ({@code --nbd-port}). Port 0
 * picks a free port, which nothing else holds.
 */
public record ServerPort(String what, String host, int port, String option) {
    public ServerPort {
        requireNonNull(what, "what is null");
        requireNonNull(host, "host is null");
        requireNonNull(option, "option is null");
    }
}
