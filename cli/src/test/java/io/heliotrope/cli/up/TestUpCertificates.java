package io.heliotrope.cli.up;

import io.heliotrope.nbd.tls.TlsDirectory;
import io.heliotrope.nbd.tls.TlsMode;
import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.SiteConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TestUpCertificates {
    @TempDir
    Path dataDir;

    @Test
    void anExistingDirectoryGetsItsCertificatesOnceAndKeepsThem() throws Exception {
        Files.createDirectories(dataDir.resolve("virginia"));
        SiteConfig base = SiteConfigLoader.load(null, Map.of("dataDir", dataDir));

        SiteConfig secured = UpCertificates.secure(base, false);
        TlsDirectory certificates = new TlsDirectory(dataDir.resolve(UpCertificates.CERTIFICATES));
        String serverCert = Files.readString(certificates.serverCert());
        SiteConfig again = UpCertificates.secure(base, false);

        assertThat(secured.tls()).isEqualTo(TlsMode.ON);
        assertThat(secured.tlsDir()).isEqualTo(certificates.path());
        assertThat(again.tlsDir()).isEqualTo(certificates.path());
        assertThat(Files.readString(certificates.serverCert())).as("made once, kept at the next start").isEqualTo(serverCert);
        assertThat(subject(certificates.clientCert())).isEqualTo("CN=operator,OU=admin,O=Heliotrope");
        assertThat(subject(certificates.serverCert())).isEqualTo("CN=localhost,OU=site,O=Heliotrope");
        assertThat(dataDir.resolve(UpCertificates.CA).resolve(TlsDirectory.CA_CERT)).exists();
    }

    @Test
    void tlsOffAndTheUsersOwnCertificatesAreLeftAlone(@TempDir Path own) {
        SiteConfig off = UpCertificates.secure(SiteConfigLoader.load(null, Map.of("dataDir", dataDir, "tls", TlsMode.OFF)), true);
        SiteConfig required = UpCertificates.secure(SiteConfigLoader.load(null, Map.of("dataDir", dataDir, "tls", TlsMode.REQUIRE, "tlsDir", own)), false);

        assertThat(off.tls()).isEqualTo(TlsMode.OFF);
        assertThat(required.tls()).isEqualTo(TlsMode.REQUIRE);
        assertThat(required.tlsDir()).isEqualTo(own);
        assertThat(dataDir.resolve(UpCertificates.CA)).as("no CA made when it is not used").doesNotExist();
    }

    private static String subject(Path file) throws IOException, CertificateException {
        try (InputStream in = Files.newInputStream(file)) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getSubjectX500Principal().getName();
        }
    }
}
