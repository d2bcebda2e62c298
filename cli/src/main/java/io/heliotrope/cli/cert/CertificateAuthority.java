package io.heliotrope.cli.cert;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.tls.TlsDirectory;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLNumber;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CRLEntryHolder;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * The small CA of {@code helio cert}: EC P-256 keys in PKCS#8 PEM, SHA-256 ECDSA signatures,
 * a certificate revocation list. Its directory holds {@code ca-cert.pem}, {@code ca-key.pem}
 * (mode 0600) and {@code ca-crl.pem}; what it issues goes to a {@link TlsDirectory} that
 * nbdkit, qemu, libnbd and our servers read as it is. A certificate's identity is its common
 * name; its role (site, admin, viewer) is its organizational unit.
 */
public final class CertificateAuthority {
    public static final String CA_KEY = "ca-key.pem";
    static final Duration CA_VALIDITY = Duration.ofDays(3650);
    static final Duration LEAF_VALIDITY = Duration.ofDays(825);
    private static final String SIGNATURE = "SHA256withECDSA";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What a certificate is for, written in its organizational unit. */
    public enum Role {
        SITE,
        ADMIN,
        VIEWER;

        String unit() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Path dir;
    private final X509CertificateHolder cert;
    private final PrivateKey key;

    private CertificateAuthority(Path dir, X509CertificateHolder cert, PrivateKey key) {
        this.dir = dir;
        this.cert = cert;
        this.key = key;
    }

    /** Makes a new CA named {@code name} in {@code dir}; fails if one is there already. */
    public static CertificateAuthority create(Path dir, String name) {
        requireNonNull(name, "name is null");
        TlsDirectory files = new TlsDirectory(dir);
        if (Files.exists(files.caCert()) || Files.exists(dir.resolve(CA_KEY))) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "a CA already exists in " + dir + " (" + TlsDirectory.CA_CERT + ")");
        }
        try {
            KeyPair pair = newKeyPair();
            X500Name subject = name(name, "ca");
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(CA_VALIDITY)), subject, pair.getPublic());
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(pair.getPublic()));
            X509CertificateHolder cert = builder.build(signer(pair.getPrivate()));
            Files.createDirectories(dir);
            writePrivate(dir.resolve(CA_KEY), pkcs8(pair));
            write(files.caCert(), pem(cert));
            CertificateAuthority ca = new CertificateAuthority(dir, cert, pair.getPrivate());
            ca.writeCrl(List.of());
            return ca;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the CA in " + dir, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot create the CA in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The CA in {@code dir}, made by {@link #create}. */
    public static CertificateAuthority load(Path dir) {
        TlsDirectory files = new TlsDirectory(dir);
        Path keyFile = dir.resolve(CA_KEY);
        if (!Files.isReadable(files.caCert()) || !Files.isReadable(keyFile)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "no CA in " + dir + " (it needs " + TlsDirectory.CA_CERT + " and " + CA_KEY
                    + "; `helio cert init` makes them)");
        }
        try {
            PrivateKey key = new JcaPEMKeyConverter().getPrivateKey(read(keyFile, PrivateKeyInfo.class));
            return new CertificateAuthority(dir, read(files.caCert(), X509CertificateHolder.class), key);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CA in " + dir, e);
        }
    }

    public Path dir() {
        return dir;
    }

    /**
     * Issues a site's certificate, for its servers and as a client of other sites and NBD
     * servers: written to {@code out} both as the server's and the client's pair, with the
     * CA's certificate and revocation list. Clients that check names (qemu, libnbd) need the
     * addresses they dial among {@code addresses} or {@code dnsNames}.
     */
    public void issueSite(String site, List<InetAddress> addresses, List<String> dnsNames, Path out) {
        List<GeneralName> names = new ArrayList<>();
        addresses.forEach(address -> names.add(new GeneralName(GeneralName.iPAddress, address.getHostAddress())));
        dnsNames.forEach(dns -> names.add(new GeneralName(GeneralName.dNSName, dns)));
        TlsDirectory files = new TlsDirectory(out);
        issue(site, Role.SITE, names, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
                List.of(files.serverCert(), files.clientCert()), List.of(files.serverKey(), files.clientKey()));
    }

    /** Issues an operator's client certificate to {@code out}, with the CA's certificate and revocation list. */
    public void issueOperator(String operator, Role role, Path out) {
        if (role == Role.SITE) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "an operator's role is admin or viewer; sites get `helio cert issue-site`");
        }
        TlsDirectory files = new TlsDirectory(out);
        issue(operator, role, List.of(), new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}, List.of(files.clientCert()), List.of(files.clientKey()));
    }

    /** Adds the certificate in {@code certFile}, one this CA issued, to the revocation list; returns its serial number. */
    public BigInteger revoke(Path certFile) {
        try {
            X509CertificateHolder revoked = read(certFile, X509CertificateHolder.class);
            if (!revoked.getIssuer().equals(cert.getSubject())) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, certFile + " was issued by " + revoked.getIssuer() + ", not by this CA ("
                        + cert.getSubject() + ")");
            }
            List<BigInteger> serials = new ArrayList<>(revokedSerials());
            if (!serials.contains(revoked.getSerialNumber())) {
                serials.add(revoked.getSerialNumber());
            }
            writeCrl(serials);
            return revoked.getSerialNumber();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot revoke " + certFile, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot sign the revocation list: " + e.getMessage(), e);
        }
    }

    /** The serial numbers of the certificates this CA revoked. */
    public List<BigInteger> revokedSerials() throws IOException {
        Path crl = new TlsDirectory(dir).caCrl();
        if (!Files.exists(crl)) {
            return List.of();
        }
        List<BigInteger> serials = new ArrayList<>();
        for (Object entry : read(crl, X509CRLHolder.class).getRevokedCertificates()) {
            serials.add(((X509CRLEntryHolder) entry).getSerialNumber());
        }
        return serials;
    }

    /** The address an IP literal names, without looking any name up; fails naming it otherwise. */
    public static InetAddress ipAddress(String ip) {
        if (!ip.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "not an IP address (give a host name as --dns): " + ip);
        }
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "not an IP address: " + ip, e);
        }
    }

    private void issue(String name, Role role, List<GeneralName> altNames, KeyPurposeId[] purposes, List<Path> certFiles, List<Path> keyFiles) {
        if (name == null || name.isBlank()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "a certificate needs a name");
        }
        try {
            KeyPair pair = newKeyPair();
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(cert.getSubject(), serial(), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(LEAF_VALIDITY)), name(name, role.unit()), pair.getPublic());
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes))
                    .addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(pair.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false, extensions.createAuthorityKeyIdentifier(cert));
            if (!altNames.isEmpty()) {
                builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(altNames.toArray(GeneralName[]::new)));
            }
            String certPem = pem(builder.build(signer(key)));
            String keyPem = pkcs8(pair);
            Path out = certFiles.get(0).getParent();
            Files.createDirectories(out);
            for (Path file : keyFiles) {
                writePrivate(file, keyPem);
            }
            for (Path file : certFiles) {
                write(file, certPem);
            }
            TlsDirectory files = new TlsDirectory(out);
            if (!files.path().toAbsolutePath().normalize().equals(dir.toAbsolutePath().normalize())) {
                Files.copy(new TlsDirectory(dir).caCert(), files.caCert(), StandardCopyOption.REPLACE_EXISTING);
                Files.copy(new TlsDirectory(dir).caCrl(), files.caCrl(), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot issue the certificate of " + name, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot issue the certificate of " + name + ": " + e.getMessage(), e);
        }
    }

    private void writeCrl(List<BigInteger> serials) throws IOException, GeneralSecurityException, OperatorCreationException {
        Instant now = Instant.now();
        X509v2CRLBuilder crl = new X509v2CRLBuilder(cert.getSubject(), Date.from(now));
        // Until the CA itself expires: a CRL past its next update makes clients refuse every certificate.
        crl.setNextUpdate(cert.getNotAfter());
        for (BigInteger serial : serials) {
            crl.addCRLEntry(serial, Date.from(now), CRLReason.unspecified);
        }
        crl.addExtension(Extension.authorityKeyIdentifier, false, new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(cert));
        crl.addExtension(Extension.cRLNumber, false, new CRLNumber(BigInteger.valueOf(now.toEpochMilli())));
        write(new TlsDirectory(dir).caCrl(), pem(crl.build(signer(key))));
    }

    private static X500Name name(String commonName, String unit) {
        return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "Heliotrope").addRDN(BCStyle.OU, unit).addRDN(BCStyle.CN, commonName).build();
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    private static ContentSigner signer(PrivateKey key) throws OperatorCreationException {
        return new JcaContentSignerBuilder(SIGNATURE).build(key);
    }

    /** A positive random serial of 127 bits: unique without a counter to keep. */
    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }

    private static String pem(Object object) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object);
        }
        return text.toString();
    }

    /**
     * The key in PKCS#8 with its public key inside (RFC 5915), as OpenSSL writes it: the JDK
     * leaves the public key out, and GnuTLS (qemu, libnbd, nbdkit) then refuses the key.
     */
    private static String pkcs8(KeyPair pair) throws IOException {
        SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded());
        BigInteger secret = ((ECPrivateKey) pair.getPrivate()).getS();
        PrivateKeyInfo info = new PrivateKeyInfo(publicKey.getAlgorithm(),
                new org.bouncycastle.asn1.sec.ECPrivateKey(256, secret, new DERBitString(publicKey.getPublicKeyData().getBytes()), null));
        return pem(new PemObject("PRIVATE KEY", info.getEncoded()));
    }

    private static <T> T read(Path file, Class<T> type) throws IOException {
        try (PEMParser parser = new PEMParser(Files.newBufferedReader(file))) {
            Object object = parser.readObject();
            if (!type.isInstance(object)) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, file + " holds no PEM " + type.getSimpleName());
            }
            return type.cast(object);
        }
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text);
    }

    /** Writes a key readable by its owner only, from the moment it exists. */
    private static void writePrivate(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, text);
    }
}
