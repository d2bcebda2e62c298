package io.heliotrope.cli.up;

import io.heliotrope.cli.cert.CertificateAuthority;
import io.heliotrope.nbd.tls.TlsDirectory;
import io.heliotrope.nbd.tls.TlsMode;
import io.heliotrope.storage.server.SiteConfig;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The TLS of {@code helio up}: NBD with {@code tls: on} (plaintext clients still connect), from
 * a CA of its own in the data directory ({@code ca/}) and one certificate directory
 * ({@code tls/}) that both sites serve from and every NBD client reads: the sites' certificate
 * for 127.0.0.1 and localhost, and an admin operator's client certificate. Made on the first
 * start, a directory from before TLS included; kept afterwards.
 */
final class UpCertificates {
    static final String CA = "ca";
    static final String CERTIFICATES = "tls";
    static final String OPERATOR = "operator";

    private UpCertificates() {}

    /** {@code base} with NBD over TLS, unless {@code --tls off}; certificates of the user's {@code --tls-dir}, else its own. */
    static SiteConfig secure(SiteConfig base, boolean turnedOff) {
        if (turnedOff) {
            return base;
        }
        Path dir = base.tlsDir() != null ? base.tlsDir() : ensure(base.dataDir(), base.localHost());
        return base.withNbdTls(base.tls() == TlsMode.OFF ? TlsMode.ON : base.tls(), dir);
    }

    private static Path ensure(Path dataDir, String host) {
        Path caDir = dataDir.resolve(CA);
        TlsDirectory certificates = new TlsDirectory(dataDir.resolve(CERTIFICATES));
        if (Files.exists(certificates.serverCert()) && Files.exists(certificates.clientCert())) {
            return certificates.path();
        }
        CertificateAuthority ca = Files.exists(caDir.resolve(TlsDirectory.CA_CERT)) ? CertificateAuthority.load(caDir)
                : CertificateAuthority.create(caDir, "helio up CA");
        Set<InetAddress> addresses = new LinkedHashSet<>(List.of(CertificateAuthority.ipAddress("127.0.0.1")));
        if (host.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            addresses.add(CertificateAuthority.ipAddress(host));
        }
        ca.issueSite("localhost", List.copyOf(addresses), List.of("localhost"), certificates.path());
        // The client pair of the directory becomes the operator's, so that a client given the directory is an admin.
        ca.issueOperator(OPERATOR, CertificateAuthority.Role.ADMIN, certificates.path());
        return certificates.path();
    }
}
