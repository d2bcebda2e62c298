package io.heliotrope.storage.server;

import io.heliotrope.nbd.tls.TlsMode;
import io.heliotrope.storage.pull.PullOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSiteConfigLoader {
    @TempDir
    Path directory;

    @Test
    void loadsEveryFieldOfAFullFile() throws URISyntaxException {
        Path file = Path.of(getClass().getResource("/site-full.yaml").toURI());
        SiteConfig config = SiteConfigLoader.load(file, Map.of());
        assertThat(config).isEqualTo(new SiteConfig("us-east", Path.of("/var/lib/heliotrope"), SiteConfig.StoreKind.MEMORY,
                "0.0.0.0", 10810, 7411, 9411, 8, Duration.ofNanos(250_000), 1L << 30, "ctl.example:7400", Duration.ofMillis(2500), 1000L,
                Duration.ofSeconds(30), Map.of("us-west", "127.0.0.1:17411"), Duration.ofSeconds(3), 2,
                7500, 2, Map.of("us-west", "127.0.0.1:17500,127.0.0.1:17501"), "/opt/qemu/bin/qemu-system-x86_64", 8L << 30,
                Duration.ofNanos(250_000), PullOrder.BLOCK, 3, false, Duration.ofSeconds(45), TlsMode.REQUIRE, Path.of("/etc/heliotrope/tls"),
                Path.of("/etc/heliotrope/nbd-authz")));
        assertThat(config.incomingMigrationPorts()).containsExactly(7500, 7501);
        assertThat(config.localHost()).isEqualTo("127.0.0.1");
    }

    @Test
    void fillsDefaultsAndLetsFlagsWin() throws IOException {
        Path file = Files.writeString(directory.resolve("site.yaml"), "dataDir: /data\nnbdPort: 1\n");
        Map<String, Object> flags = new HashMap<>();
        flags.put("nbdPort", 2);
        flags.put("site", null);
        SiteConfig config = SiteConfigLoader.load(file, flags);
        assertThat(config).isEqualTo(new SiteConfig("local", Path.of("/data"), SiteConfig.StoreKind.ROCKSDB,
                "127.0.0.1", 2, 7410, 9410, null, Duration.ofNanos(50_000), 256L << 20, null, Duration.ofSeconds(5), 65_536L,
                Duration.ofSeconds(10), Map.of(), Duration.ofSeconds(10), 4, 7420, 4, Map.of(), "qemu-system-x86_64", 0L, Duration.ofMillis(1), null, null, null, null, null, null, null));
        assertThat(config.pullOrder()).isEqualTo(PullOrder.HEAT);
        assertThat(config.leaseHold()).isEqualTo(SiteConfig.DEFAULT_LEASE_HOLD);
        assertThat(config.controllers()).isEmpty();
        assertThat(config.peerBulkConnections()).isEqualTo(SiteConfig.DEFAULT_PEER_BULK_CONNECTIONS);
        assertThat(config.handoffBoost()).isTrue();
        assertThat(config.tls()).isEqualTo(TlsMode.OFF);
    }

    @Test
    void takesTheNbdTlsModeAsYamlWritesItAndChecksWhatItNeeds() throws IOException {
        for (String mode : new String[] {"off", "on", "require", "ON"}) {
            Path file = Files.writeString(directory.resolve(mode + ".yaml"), "dataDir: /data\ntls: " + mode + "\ntlsDir: /tls\n");
            assertThat(SiteConfigLoader.load(file, Map.of()).tls()).isEqualTo(TlsMode.parse(mode));
        }
        assertThatThrownBy(() -> SiteConfigLoader.load(null, Map.of("store", "memory", "tls", TlsMode.ON)))
                .hasMessageContaining("tls: on needs tlsDir");
        assertThatThrownBy(() -> SiteConfigLoader.load(null, Map.of("store", "memory", "tls", TlsMode.ON, "tlsDir", Path.of("/tls"), "tlsAuthz", Path.of("/a"))))
                .hasMessageContaining("tlsAuthz needs tls: require");
    }

    @Test
    void takesSeveralControllersAsACommaSeparatedStringOrAYamlList() throws IOException {
        Path list = Files.writeString(directory.resolve("list.yaml"), "dataDir: /data\ncontroller:\n  - a:7400\n  - b:7401\n");
        assertThat(SiteConfigLoader.load(list, Map.of()).controllers()).containsExactly("a:7400", "b:7401");
        Path one = Files.writeString(directory.resolve("one.yaml"), "dataDir: /data\ncontroller: a:7400\n");
        assertThat(SiteConfigLoader.load(one, Map.of()).controllers()).containsExactly("a:7400");
        assertThat(SiteConfigLoader.load(one, Map.of("controller", "a:7400, b:7401,c:7402")).controllers()).containsExactly("a:7400", "b:7401", "c:7402");
        assertThatThrownBy(() -> SiteConfigLoader.load(one, Map.of("controller", "a:7400,b")))
                .hasMessage("invalid site configuration (" + one + "): 'b' in 'a:7400,b' is not HOST:PORT");
    }

    @Test
    void rejectsUnknownKeysAndMissingDataDir() throws IOException {
        Path typo = Files.writeString(directory.resolve("typo.yaml"), "dataDir: /data\nnbdprot: 1\n");
        assertThatThrownBy(() -> SiteConfigLoader.load(typo, Map.of()))
                .hasMessageStartingWith("invalid site configuration (" + typo + "): Unrecognized field \"nbdprot\"");
        assertThatThrownBy(() -> SiteConfigLoader.load(null, Map.of()))
                .hasMessage("invalid site configuration (command line): dataDir is required for the rocksdb store");
        assertThatThrownBy(() -> SiteConfigLoader.load(null, Map.of("store", "memory", "nbdPort", 70000)))
                .hasMessage("invalid site configuration (command line): port out of range: 70000");
        assertThatThrownBy(() -> SiteConfigLoader.load(null, Map.of("store", "memory", "nbdPoll", Duration.ofSeconds(2))))
                .hasMessage("invalid site configuration (command line): nbdPoll must be between 0s and 1s: PT2S");
        assertThatThrownBy(() -> SiteConfigLoader.load(null, Map.of("store", "memory", "vmMemoryBytes", -1)))
                .hasMessage("invalid site configuration (command line): vmMemoryBytes must be 0 (no limit) or more: -1");
        assertThatThrownBy(() -> SiteConfigLoader.load(null, Map.of("store", "memory", "intraSiteRtt", Duration.ZERO)))
                .hasMessage("invalid site configuration (command line): intraSiteRtt must be between 1us and 10s: PT0S");
    }
}
