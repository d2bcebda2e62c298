package io.heliotrope.nbd.tls;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * A certificate directory laid out as nbdkit ({@code --tls-certificates}), qemu
 * ({@code tls-creds-x509,dir=}) and libnbd ({@code tls-certificates=}) expect it, so that one
 * directory serves all of them: the CA's certificate, optionally its revocation list, and this
 * end's certificate and PKCS#8 PEM key as a server, as a client, or both.
 */
public record TlsDirectory(Path path) {
    public static final String CA_CERT = "ca-cert.pem";
    public static final String CA_CRL = "ca-crl.pem";
    public static final String SERVER_CERT = "server-cert.pem";
    public static final String SERVER_KEY = "server-key.pem";
    public static final String CLIENT_CERT = "client-cert.pem";
    public static final String CLIENT_KEY = "client-key.pem";

    public TlsDirectory {
        requireNonNull(path, "path is null");
    }

    public Path caCert() {
        return path.resolve(CA_CERT);
    }

    public Path caCrl() {
        return path.resolve(CA_CRL);
    }

    public Path serverCert() {
        return path.resolve(SERVER_CERT);
    }

    public Path serverKey() {
        return path.resolve(SERVER_KEY);
    }

    public Path clientCert() {
        return path.resolve(CLIENT_CERT);
    }

    public Path clientKey() {
        return path.resolve(CLIENT_KEY);
    }
}
