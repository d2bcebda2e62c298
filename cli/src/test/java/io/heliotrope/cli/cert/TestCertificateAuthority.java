package io.heliotrope.cli.cert;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.tls.TlsDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCertificateAuthority {
    @TempDir
    Path dir;

    @Test
    void issuesSiteCertificatesWithAddressesInTheLayoutNbdClientsRead() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "Test CA");
        TlsDirectory site = new TlsDirectory(dir.resolve("virginia"));

        ca.issueSite("virginia", List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1")), List.of("localhost"), site.path());

        X509Certificate cert = certificate(site.serverCert());
        X509Certificate caCert = certificate(site.caCert());
        cert.verify(caCert.getPublicKey());
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=virginia,OU=site,O=Heliotrope");
        assertThat(cert.getSubjectAlternativeNames().stream().map(name -> String.valueOf(name.get(1))).toList())
                .containsExactlyInAnyOrder("127.0.0.1", "0:0:0:0:0:0:0:1", "localhost");
        assertThat(cert.getExtendedKeyUsage()).containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(cert.getBasicConstraints()).isEqualTo(-1);
        assertThat(caCert.getBasicConstraints()).isZero();
        assertThat(Files.readString(site.clientCert())).isEqualTo(Files.readString(site.serverCert()));
        assertThat(Files.getPosixFilePermissions(site.serverKey())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(dir.resolve("ca").resolve(CertificateAuthority.CA_KEY))).isEqualTo(PosixFilePermissions.fromString("rw-------"));

        String keyPem = Files.readString(site.serverKey());
        assertThat(keyPem).startsWith("-----BEGIN PRIVATE KEY-----");
        ECPrivateKey key = (ECPrivateKey) KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der(keyPem)));
        assertThat(key.getParams().getCurve().getField().getFieldSize()).isEqualTo(256);
        assertThat(der(keyPem).length).as("the public key is inside, as GnuTLS needs").isGreaterThan(100);
        assertThat(site.caCrl()).exists();
    }

    @Test
    void issuesOperatorsWithTheirRoleAndRevokes() throws Exception {
        CertificateAuthority.create(dir.resolve("ca"), "Test CA");
        CertificateAuthority ca = CertificateAuthority.load(dir.resolve("ca"));
        TlsDirectory viewer = new TlsDirectory(dir.resolve("vera"));

        ca.issueOperator("vera", CertificateAuthority.Role.VIEWER, viewer.path());
        BigInteger serial = ca.revoke(viewer.clientCert());

        X509Certificate cert = certificate(viewer.clientCert());
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=vera,OU=viewer,O=Heliotrope");
        assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(viewer.serverCert()).doesNotExist();
        assertThat(serial).isEqualTo(cert.getSerialNumber());
        assertThat(ca.revokedSerials()).containsExactly(serial);
        X509CRL crl = crl(dir.resolve("ca").resolve(TlsDirectory.CA_CRL));
        crl.verify(certificate(viewer.caCert()).getPublicKey());
        assertThat(crl.isRevoked(cert)).isTrue();
    }

    @Test
    void refusesASecondCaAnOperatorWithTheSiteRoleAndAForeignCertificate() {
        CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "Test CA");
        CertificateAuthority other = CertificateAuthority.create(dir.resolve("other"), "Other CA");
        other.issueOperator("mallory", CertificateAuthority.Role.ADMIN, dir.resolve("mallory"));

        assertThatThrownBy(() -> CertificateAuthority.create(dir.resolve("ca"), "Again")).isInstanceOf(HeliotropeException.class)
                .hasMessageContaining("a CA already exists");
        assertThatThrownBy(() -> ca.issueOperator("sam", CertificateAuthority.Role.SITE, dir.resolve("sam"))).isInstanceOf(HeliotropeException.class)
                .hasMessageContaining("admin or viewer");
        assertThatThrownBy(() -> ca.revoke(dir.resolve("mallory").resolve(TlsDirectory.CLIENT_CERT))).isInstanceOf(HeliotropeException.class)
                .hasMessageContaining("not by this CA");
        assertThatThrownBy(() -> CertificateAuthority.load(dir.resolve("none"))).isInstanceOf(HeliotropeException.class)
                .hasMessageContaining("helio cert init");
    }

    private static byte[] der(String pem) {
        return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
    }

    private static X509Certificate certificate(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static X509CRL crl(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509CRL) CertificateFactory.getInstance("X.509").generateCRL(in);
        }
    }
}
