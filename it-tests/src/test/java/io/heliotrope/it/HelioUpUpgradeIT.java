package io.heliotrope.it;

import io.heliotrope.controller.zookeeper.ControllerAcl;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.SecretFile;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code helio up} data directory of a release before issue #27 (ZooKeeper open to anyone, no
 * secret file) upgrades in place: the next {@code helio up} makes a secret, secures every znode,
 * and serves the demo image with what was written to it before.
 */
class HelioUpUpgradeIT {
    private static final Pattern DEMO_URL = Pattern.compile("demo image : (nbd://127\\.0\\.0\\.1:\\d+/demo)\\n");
    private static final Duration STARTUP = Duration.ofSeconds(120);
    private static final String ROOT = "/heliotrope";

    @Test
    void anOpenStateDirectoryIsSecuredByTheNextUpAndKeepsItsImages(@TempDir Path dataDir) throws Exception {
        Path secret = dataDir.resolve("zookeeper-secret");
        List<String> command = Tools.helioCommand(List.of("-Xmx1g"), "up", "--data-dir", dataDir.toString(),
                "--nbd-port", "0", "--grpc-port", "0", "--metrics-port", "0", "--controller-port", "0", "--status-port", "0");
        try (ChildProcess up = ChildProcess.start("helio-up", command)) {
            String demo = up.awaitOutput(DEMO_URL, STARTUP).group(1);
            ok("qemu-io", "-f", "raw", "-c", "write -P 0x5a 1M 64k", demo);
            Await.until("the demo image closed at virginia", STARTUP, () -> up.output().contains("demo: closed"));
            assertThat(up.stop()).as("stopped within 20 s of SIGTERM; output:%n%s", up.output()).isTrue();
        }
        try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dataDir.resolve("zookeeper"), 0);
             ZooKeeperProbe controllers = ZooKeeperProbe.withSecretFile(zookeeper.connectString(), secret)) {
            controllers.reopen(ROOT);
        }
        Files.delete(secret);

        try (ChildProcess up = ChildProcess.start("helio-up", command)) {
            String demo = up.awaitOutput(DEMO_URL, STARTUP).group(1);
            assertThat(up.output()).containsPattern("ZooKeeper: set the controllers' ACL \\(.*\\) on \\d+ of the \\d+ znodes under /heliotrope");
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 1M 64k", demo);
            assertThat(up.stop()).as("stopped within 20 s of SIGTERM; output:%n%s", up.output()).isTrue();
        }

        List<ACL> controllersOnly = SecretFile.read(secret).acl();
        try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dataDir.resolve("zookeeper"), 0);
             ZooKeeperProbe controllers = ZooKeeperProbe.withSecretFile(zookeeper.connectString(), secret);
             ZooKeeperProbe stranger = ZooKeeperProbe.anonymous(zookeeper.connectString())) {
            List<String> tree = controllers.tree(ROOT);
            assertThat(tree).contains(ROOT + "/images/demo/config", ROOT + "/sites/taiwan", ROOT + "/acl-secured");
            for (String path : tree) {
                assertThat(controllers.acl(path)).as("ACL of %s", path).isEqualTo(controllersOnly).isNotEqualTo(ControllerAcl.OPEN.acl());
                stranger.assertLockedOut(path);
            }
        }
    }
}
