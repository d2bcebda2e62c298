package io.heliotrope.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static io.heliotrope.it.Tools.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * NBD over TLS with the real clients (qemu-img, qemu-io, nbdinfo, nbdcopy) and certificates
 * that {@code helio cert} made, against a site that requires TLS and authorizes images by the
 * client certificate's identity: alice reads and writes everything, bob only reads secure-*,
 * carol has no rule, dave's certificate was revoked, and a second CA made another alice.
 */
class NbdTlsIT {
    private static final String AUTHZ = """
            # identity  images     access
            alice       *          rw
            bob         secure-*   ro
            dave        *          rw
            """;

    @TempDir
    static Path certs;
    private static TestingSite site;

    @BeforeAll
    static void start() throws IOException {
        Path ca = certs.resolve("ca");
        helio("cert", "init", "--ca", ca.toString()).assertSuccess();
        for (String name : List.of("alice", "bob", "carol", "dave")) {
            helio("cert", "issue-operator", name, "--role", name.equals("bob") ? "viewer" : "admin", "--ca", ca.toString(), "--out", dir(name).toString())
                    .assertSuccess();
        }
        helio("cert", "revoke", dir("dave").resolve("client-cert.pem").toString(), "--ca", ca.toString()).assertSuccess();
        // The site's directory gets the revocation list as it is when the certificate is issued.
        helio("cert", "issue-site", "tls-site", "--ip", "127.0.0.1", "--ca", ca.toString(), "--out", dir("site").toString()).assertSuccess();
        Path otherCa = certs.resolve("other-ca");
        helio("cert", "init", "--ca", otherCa.toString(), "--name", "Another CA").assertSuccess();
        helio("cert", "issue-operator", "alice", "--role", "admin", "--ca", otherCa.toString(), "--out", dir("other-alice").toString()).assertSuccess();
        Files.copy(dir("alice").resolve("ca-cert.pem"), dir("other-alice").resolve("ca-cert.pem"), StandardCopyOption.REPLACE_EXISTING);
        Path authz = Files.writeString(certs.resolve("nbd-authz"), AUTHZ);
        site = TestingSite.start("--tls", "require", "--tls-dir", dir("site").toString(), "--tls-authz", authz.toString());
    }

    @AfterAll
    static void stop() throws IOException {
        if (site != null) {
            site.close();
        }
    }

    @Test
    void qemuImgAndQemuIoWriteAndReadOverTls() {
        site.createImage("secure-qemu", "16M");

        ok(qemu("qemu-io", "alice", "secure-qemu", "-c", "write -P 0xab 1M 1M"));

        assertThat(ok(qemu("qemu-img", "alice", "secure-qemu")).stdout()).contains("virtual size: 16 MiB");
        assertThat(ok(qemu("qemu-io", "alice", "secure-qemu", "-c", "read -P 0xab 1M 1M")).stdout()).doesNotContain("Pattern verification failed");
    }

    @Test
    void nbdinfoAndNbdcopyOverTls() throws IOException {
        site.createImage("secure-copy", "8M");
        Path source = certs.resolve("source.img");
        Path back = certs.resolve("back.img");
        ok("dd", "if=/dev/urandom", "of=" + source, "bs=1M", "count=8", "status=none");

        ok("nbdcopy", source.toString(), nbds("alice", "secure-copy"));
        ok("nbdcopy", nbds("alice", "secure-copy"), back.toString());

        assertThat(Tools.sha256(back)).isEqualTo(Tools.sha256(source));
        assertThat(ok("nbdinfo", nbds("alice", "secure-copy")).stdout()).contains("export-size: 8388608").contains("is_read_only: false");
        assertThat(ok("nbdinfo", "--list", nbds("alice", "")).stdout()).contains("secure-copy");
    }

    @Test
    void withoutTlsNothingIsListedOrOpened() {
        site.createImage("secure-plain", "4M");

        Tools.Result list = run("nbdinfo", "--list", site.nbdServerUri());
        Tools.Result info = run("qemu-img", "info", "-f", "raw", site.nbdUri("secure-plain"));

        assertThat(list.exitCode()).as(list.toString()).isNotZero();
        assertThat(list.stdout() + list.stderr()).as(list.toString()).doesNotContain("secure-plain");
        assertThat(info.exitCode()).as(info.toString()).isNotZero();
        assertThat(info.stdout()).doesNotContain("virtual size");
    }

    @Test
    void imageAuthorizationRefusesOtherIdentitiesAndWritesOfReaders() {
        site.createImage("secure-authz", "4M");
        ok(qemu("qemu-io", "alice", "secure-authz", "-c", "write -P 0x5a 0 64k"));

        Tools.Result bobWrites = run(qemu("qemu-io", "bob", "secure-authz", "-c", "write -P 0x11 0 64k"));
        Tools.Result carolOpens = run("nbdinfo", nbds("carol", "secure-authz"));

        assertThat(bobWrites.exitCode()).as(bobWrites.toString()).isNotZero();
        assertThat(ok(qemu("qemu-io", "bob", "secure-authz", "-r", "-c", "read -P 0x5a 0 64k")).stdout())
                .as("bob reads what alice wrote, and his write changed nothing").doesNotContain("Pattern verification failed");
        assertThat(ok("nbdinfo", nbds("bob", "secure-authz")).stdout()).contains("is_read_only: true");
        assertThat(carolOpens.exitCode()).as(carolOpens.toString()).isNotZero();
        assertThat(site.log()).as("the refusal names the identity and the image").contains("'carol' may not open image secure-authz");
        assertThat(ok("nbdinfo", "--list", nbds("carol", "")).stdout()).as("carol is shown none of the images").doesNotContain("secure-");
    }

    @Test
    void revokedCertificateAndOneOfAnotherCaAreRefused() {
        site.createImage("secure-revoked", "4M");

        Tools.Result dave = run("nbdinfo", nbds("dave", "secure-revoked"));
        Tools.Result impostor = run("nbdinfo", nbds("other-alice", "secure-revoked"));

        assertThat(dave.exitCode()).as(dave.toString()).isNotZero();
        assertThat(impostor.exitCode()).as(impostor.toString()).isNotZero();
        assertThat(ok("nbdinfo", nbds("alice", "secure-revoked")).stdout()).as("the server still serves").contains("export-size: 4194304");
    }

    /** One directory serves all: nbdkit (GnuTLS) serves from the site's, takes alice's and refuses dave's by the same revocation list. */
    @Test
    void nbdkitServesFromTheSameDirectories() {
        int port = Ports.free(1)[0];
        try (ChildProcess nbdkit = ChildProcess.start("nbdkit", List.of("nbdkit", "-f", "-v", "-i", "127.0.0.1", "-p", Integer.toString(port),
                "--tls=require", "--tls-certificates=" + dir("site"), "--tls-verify-peer", "memory", "1M"))) {
            nbdkit.awaitOutput(Pattern.compile("bound to IP address"), Duration.ofSeconds(20));
            String uri = "nbds://127.0.0.1:" + port + "/?tls-certificates=";

            Tools.Result dave = run("nbdinfo", uri + dir("dave"));

            assertThat(ok("nbdinfo", uri + dir("alice")).stdout()).contains("export-size: 1048576");
            assertThat(dave.exitCode()).as(dave.toString()).isNotZero();
        }
    }

    private static Path dir(String name) {
        return certs.resolve(name);
    }

    private static String nbds(String identity, String image) {
        return "nbds://127.0.0.1:" + site.nbdPort() + "/" + image + "?tls-certificates=" + dir(identity);
    }

    /** {@code qemu-img info} or {@code qemu-io} on an export through TLS with {@code identity}'s certificates, and {@code args} after. */
    private static String[] qemu(String tool, String identity, String image, String... args) {
        List<String> command = new ArrayList<>(List.of(tool));
        if (tool.equals("qemu-img")) {
            command.add("info");
        }
        command.addAll(List.of("--object", "tls-creds-x509,id=tls0,dir=" + dir(identity) + ",endpoint=client", "--image-opts",
                "driver=nbd,server.type=inet,server.host=127.0.0.1,server.port=" + site.nbdPort() + ",export=" + image + ",tls-creds=tls0"));
        command.addAll(List.of(args));
        return command.toArray(String[]::new);
    }
}
