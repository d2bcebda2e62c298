package io.heliotrope.it;

import io.heliotrope.controller.zookeeper.ControllerAcl;
import io.heliotrope.controller.zookeeper.SecretFile;
import io.heliotrope.version.Version;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_READ;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tree that controllers without a secret left open (every release before issue #27) is
 * secured by the first controller started with one: every znode gets the controllers' ACL, it
 * says so once, the images survive, and a later start changes nothing.
 */
class ZooKeeperAclMigrationIT {
    private static final String ROOT = "/heliotrope";
    private static final Pattern SECURED = Pattern.compile(
            "ZooKeeper: set the controllers' ACL \\(.*\\) on (\\d+) of the (\\d+) znodes under /heliotrope in \\d+ ms");

    @TempDir
    static Path directory;
    private static ZooKeeperEnsemble ensemble;

    @BeforeAll
    static void startEnsemble() {
        ensemble = ZooKeeperEnsemble.start(3);
    }

    @AfterAll
    static void stopEnsemble() throws Exception {
        ensemble.close();
    }

    @Test
    void theFirstControllerWithTheSecretSecuresEveryZnodeOnceAndEveryImageSurvives() throws Exception {
        Delta delta;
        List<String> openTree;
        try (TestingController open = TestingController.start("open-controller", ensemble.connectString(), List.of())) {
            ControllerClient client = new ControllerClient(open);
            client.registerSite("site-a");
            long epoch = client.createAndOpenForWrite("kept", 64 << 20, "site-a");
            delta = Delta.range(0, 2_000, "site-a", Version.compose(epoch, 1));
            client.flush("kept", "site-a", epoch, delta, true);
            client.createImage("also-kept", 1 << 20);
            try (ZooKeeperProbe anyone = ZooKeeperProbe.anonymous(ensemble.connectString())) {
                openTree = anyone.tree(ROOT);
                assertThat(anyone.acl(ROOT + "/images/kept/config")).as("the tree before").isEqualTo(ControllerAcl.OPEN.acl());
            }
        }

        Path secret = directory.resolve("zookeeper-secret");
        SecretFile.createIfMissing(secret);
        List<ACL> controllersOnly = SecretFile.read(secret).acl();
        try (TestingController secured = TestingController.start("secured-controller", ensemble.connectString(),
                List.of("--zookeeper-auth-file", secret.toString()))) {
            Matcher said = SECURED.matcher(secured.log());
            assertThat(said.find()).as("the controller says it secured the tree; its log:%n%s", secured.log()).isTrue();
            // The open tree, less the leader latch's ephemeral znodes that left with the open controller's session, and its children.
            int opened = openTree.stream().filter(path -> !path.startsWith(ROOT + "/scheduler/leader/")).toList().size();
            assertThat(Integer.parseInt(said.group(1))).isEqualTo(Integer.parseInt(said.group(2))).isEqualTo(opened);
            System.out.println("ZooKeeperAclMigrationIT: the controller said: " + said.group());

            try (ZooKeeperProbe controllers = ZooKeeperProbe.withSecretFile(ensemble.connectString(), secret);
                 ZooKeeperProbe stranger = ZooKeeperProbe.anonymous(ensemble.connectString())) {
                List<String> tree = controllers.tree(ROOT);
                assertThat(tree).containsAll(openTree.stream().filter(path -> !path.startsWith(ROOT + "/scheduler/leader/")).toList());
                for (String path : tree) {
                    assertThat(controllers.acl(path)).as("ACL of %s", path).isEqualTo(controllersOnly);
                    stranger.assertLockedOut(path);
                }
            }
            ControllerClient client = new ControllerClient(secured);
            assertThat(client.open("kept", "site-a", OPEN_MODE_READ, 0).blocks()).isEqualTo(delta.entries());
            assertThat(helio("image", "ls", "--controller", secured.target()).assertSuccess().stdout()).contains("kept", "also-kept");

            secured.restart();
            assertThat(SECURED.matcher(secured.log()).results().count()).as("times it secured the tree, across a restart").isOne();
            assertThat(client.status("also-kept").getConfig().getSizeBytes()).isEqualTo(1 << 20);
        }

        Tools.Result refused = helio("controller", "--zookeeper", ensemble.connectString(), "--grpc-port", "0", "--status-port", "0",
                "--log-file", directory.resolve("refused.log").toString());
        assertThat(refused.exitCode()).as("a controller without the secret on a secured tree: %s", refused).isNotZero();
        assertThat(refused.stdout() + refused.stderr()).contains("the tree is secured: this controller needs the cluster's secret, --zookeeper-auth-file");
    }
}
