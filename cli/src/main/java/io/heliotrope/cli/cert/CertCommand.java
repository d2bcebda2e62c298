package io.heliotrope.cli.cert;

import io.heliotrope.cli.server.StateDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "cert",
        mixinStandardHelpOptions = true,
        description = {"A small certificate authority for TLS: EC P-256 keys (PKCS#8 PEM), X.509 certificates whose common name is the",
                "identity and whose organizational unit is the role (site, admin, viewer), and a revocation list. Each issued",
                "directory holds ca-cert.pem, ca-crl.pem and server-cert.pem/server-key.pem and/or client-cert.pem/client-key.pem,",
                "the layout nbdkit --tls-certificates, qemu tls-creds-x509 dir= and libnbd tls-certificates= read as it is."},
        subcommands = {CertCommand.Init.class, CertCommand.IssueSite.class, CertCommand.IssueOperator.class, CertCommand.Revoke.class})
public final class CertCommand {
    @Option(names = "--ca", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "The CA's directory: ca-cert.pem, ca-key.pem, ca-crl.pem (default: $XDG_STATE_HOME/heliotrope/ca).")
    Path ca;

    Path caDir() {
        return ca != null ? ca : StateDirectory.resolve("ca");
    }

    @Command(name = "init", mixinStandardHelpOptions = true, description = "Make a new CA in --ca DIR (refused if one is there).")
    static final class Init implements Callable<Integer> {
        @ParentCommand
        CertCommand parent;

        @Option(names = "--name", paramLabel = "NAME", defaultValue = "Heliotrope CA", description = "The CA's common name (default: ${DEFAULT-VALUE}).")
        String name;

        @Override
        public Integer call() {
            CertificateAuthority ca = CertificateAuthority.create(parent.caDir(), name);
            System.out.println("CA '" + name + "' made in " + ca.dir() + " (keep " + CertificateAuthority.CA_KEY + " secret)");
            return 0;
        }
    }

    @Command(name = "issue-site", mixinStandardHelpOptions = true,
            description = {"Issue a site's certificate, for its servers and as a client, to --out DIR (server and client pairs both).",
                    "Clients that check names (qemu, libnbd) need the address they dial in --ip or --dns."})
    static final class IssueSite implements Callable<Integer> {
        @ParentCommand
        CertCommand parent;

        @Parameters(paramLabel = "SITE", description = "The site's name: its identity.")
        String site;

        @Option(names = "--out", paramLabel = "DIR", required = true, description = "Where the certificate directory goes.")
        Path out;

        @Option(names = "--ip", paramLabel = "ADDRESS", description = "An IP address the site is reached at; repeatable (default: 127.0.0.1 "
                + "when neither --ip nor --dns is given).")
        List<String> ips = new ArrayList<>();

        @Option(names = "--dns", paramLabel = "NAME", description = "A host name the site is reached at; repeatable (default: localhost "
                + "when neither --ip nor --dns is given).")
        List<String> dnsNames = new ArrayList<>();

        @Override
        public Integer call() {
            boolean defaults = ips.isEmpty() && dnsNames.isEmpty();
            List<InetAddress> addresses = new ArrayList<>();
            for (String ip : defaults ? List.of("127.0.0.1") : ips) {
                addresses.add(CertificateAuthority.ipAddress(ip));
            }
            CertificateAuthority.load(parent.caDir()).issueSite(site, addresses, defaults ? List.of("localhost") : dnsNames, out);
            System.out.println("site certificate of '" + site + "' in " + out);
            return 0;
        }

    }

    @Command(name = "issue-operator", mixinStandardHelpOptions = true,
            description = "Issue an operator's client certificate, with its role, to --out DIR (client-cert.pem, client-key.pem).")
    static final class IssueOperator implements Callable<Integer> {
        @ParentCommand
        CertCommand parent;

        @Parameters(paramLabel = "NAME", description = "The operator's name: its identity.")
        String name;

        @Option(names = "--role", paramLabel = "ROLE", required = true, description = "admin or viewer.")
        CertificateAuthority.Role role;

        @Option(names = "--out", paramLabel = "DIR", required = true, description = "Where the certificate directory goes.")
        Path out;

        @Override
        public Integer call() {
            CertificateAuthority.load(parent.caDir()).issueOperator(name, role, out);
            System.out.println(role.unit() + " certificate of '" + name + "' in " + out);
            return 0;
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
            description = {"Revoke a certificate this CA issued: it goes on the CA's ca-crl.pem, which servers read from their",
                    "certificate directories as they start (copy it there)."})
    static final class Revoke implements Callable<Integer> {
        @ParentCommand
        CertCommand parent;

        @Parameters(paramLabel = "CERT", description = "The certificate to revoke (PEM), e.g. DIR/client-cert.pem.")
        Path cert;

        @Override
        public Integer call() {
            BigInteger serial = CertificateAuthority.load(parent.caDir()).revoke(cert);
            System.out.println("revoked serial " + serial.toString(16) + "; the list is " + parent.caDir().resolve("ca-crl.pem"));
            return 0;
        }
    }
}
