package io.heliotrope.cli.server;

/** The {@code nbds://} URI of an export, libnbd's form for NBD over TLS, with the client's certificate directory as libnbd takes it. */
public final class NbdsUri {
    private NbdsUri() {}

    public static String of(String host, int port, String export, String certificates) {
        return "nbds://" + host + ":" + port + "/" + export + "?tls-certificates=" + certificates;
    }
}
