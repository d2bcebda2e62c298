package io.heliotrope.nbd.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.util.Collection;

import static java.util.Objects.requireNonNull;

/**
 * TLS for an NBD server: its mode, the server side of TLS 1.3 (1.2 allowed) from a
 * {@link TlsDirectory}, and who may open what. A client must present a certificate our CA
 * signed and did not revoke ({@code ca-crl.pem}, when the directory has one); its identity is
 * the certificate's common name.
 */
public final class NbdTls {
    public static final NbdTls OFF = new NbdTls(TlsMode.OFF, null, ImageAuthorization.ANY_CERTIFICATE);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final TlsMode mode;
    private final SslContext context;
    private final ImageAuthorization authorization;

    private NbdTls(TlsMode mode, SslContext context, ImageAuthorization authorization) {
        this.mode = mode;
        this.context = context;
        this.authorization = authorization;
    }

    /**
     * TLS from the certificates in {@code dir}, with the rules of {@code authorizationFile}, or
     * none (every certificate of our CA may read and write every image). Rules need
     * {@code REQUIRE}: under {@code ON} a plaintext client would pass by them.
     */
    public static NbdTls load(TlsMode mode, TlsDirectory dir, Path authorizationFile) {
        requireNonNull(mode, "mode is null");
        if (mode == TlsMode.OFF) {
            if (authorizationFile != null) {
                throw new IllegalArgumentException("an NBD authorization file needs tls: require, and tls is off");
            }
            return OFF;
        }
        requireNonNull(dir, "a certificate directory is required for tls: " + mode);
        if (authorizationFile != null && mode != TlsMode.REQUIRE) {
            throw new IllegalArgumentException("an NBD authorization file needs tls: require; with tls: " + mode
                    + " a plaintext client would not be checked against it");
        }
        ImageAuthorization authorization = authorizationFile == null ? ImageAuthorization.ANY_CERTIFICATE : ImageAuthorization.load(authorizationFile);
        for (Path file : new Path[] {dir.caCert(), dir.serverCert(), dir.serverKey()}) {
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("tls: " + mode + " needs " + file + " (`helio cert issue-site` makes the directory)");
            }
        }
        try {
            SslContext context = SslContextBuilder.forServer(dir.serverCert().toFile(), dir.serverKey().toFile())
                    .trustManager(trustManager(dir))
                    .clientAuth(ClientAuth.REQUIRE)
                    .protocols(PROTOCOLS)
                    .build();
            return new NbdTls(mode, context, authorization);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot load the TLS certificates of " + dir.path() + ": " + e.getMessage(), e);
        }
    }

    public TlsMode mode() {
        return mode;
    }

    public ImageAuthorization authorization() {
        return authorization;
    }

    /** The handler that turns a connection into TLS after {@code NBD_OPT_STARTTLS}; only when the mode is not {@code OFF}. */
    public SslHandler newHandler(ByteBufAllocator allocator) {
        if (context == null) {
            throw new IllegalStateException("TLS is off");
        }
        return context.newHandler(allocator);
    }

    /** The identity of the peer of a TLS session: the common name of its certificate. */
    public static String identity(SSLSession session) throws SSLPeerUnverifiedException {
        Certificate[] chain = session.getPeerCertificates();
        String subject = ((X509Certificate) chain[0]).getSubjectX500Principal().getName();
        try {
            for (Rdn rdn : new LdapName(subject).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return rdn.getValue().toString();
                }
            }
        } catch (InvalidNameException e) {
            throw new SSLPeerUnverifiedException("unreadable certificate subject " + subject);
        }
        throw new SSLPeerUnverifiedException("the client certificate has no common name: " + subject);
    }

    /** Trusts the CA of the directory only, and refuses what its revocation list names. */
    private static TrustManagerFactory trustManager(TlsDirectory dir) throws IOException, GeneralSecurityException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
        anchors.load(null, null);
        try (InputStream in = Files.newInputStream(dir.caCert())) {
            int i = 0;
            for (Certificate ca : factory.generateCertificates(in)) {
                anchors.setCertificateEntry("ca-" + i++, ca);
            }
        }
        PKIXBuilderParameters parameters = new PKIXBuilderParameters(anchors, new X509CertSelector());
        boolean crl = Files.isReadable(dir.caCrl());
        parameters.setRevocationEnabled(crl);
        if (crl) {
            try (InputStream in = Files.newInputStream(dir.caCrl())) {
                Collection<?> crls = factory.generateCRLs(in);
                parameters.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(crls)));
            }
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
        trust.init(new CertPathTrustManagerParameters(parameters));
        return trust;
    }
}
