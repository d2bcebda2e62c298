package io.heliotrope.it;

import io.heliotrope.controller.zookeeper.SecretFile;
import io.heliotrope.version.Version;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_READ;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every znode under /heliotrope is the controllers' alone: two controllers sharing the secret
 * create, open, flush, compact and list as before, while a ZooKeeper client without the secret,
 * or with another one, can read, list, create, write, delete or re-ACL none of them.
 */
class ZooKeeperSecurityIT {
    private static final String ROOT = "/heliotrope";
    private static final String SITE_A = "site-a";
    private static final String SITE_B = "site-b";

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(2).withSites(SITE_A, SITE_B);

    @Test
    void controllersWorkWhileNoOneWithoutTheirSecretReadsOrChangesAnyZnode() throws Exception {
        ControllerClient first = cluster.client(0);
        ControllerClient second = cluster.client(1);
        long epoch = first.createAndOpenForWrite("guarded", 64 << 20, SITE_A);
        Delta delta = Delta.range(0, 5_000, SITE_A, Version.compose(epoch, 1));
        first.flush("guarded", SITE_A, epoch, delta, true);
        first.compact("guarded");
        second.createImage("other", 1 << 20);
        assertThat(second.open("guarded", SITE_B, OPEN_MODE_READ, 0).blocks()).isEqualTo(delta.entries());
        assertThat(helio("image", "ls", "--controller", cluster.controller(1).target()).assertSuccess().stdout()).contains("guarded", "other");

        String connect = cluster.ensemble().connectString();
        List<ACL> controllersOnly = SecretFile.read(cluster.secretFile()).acl();
        try (ZooKeeperProbe controllers = ZooKeeperProbe.withSecretFile(connect, cluster.secretFile());
             ZooKeeperProbe stranger = ZooKeeperProbe.anonymous(connect);
             ZooKeeperProbe impostor = ZooKeeperProbe.withSecret(connect, "not-the-clusters-secret-0123456789")) {
            List<String> tree = controllers.tree(ROOT);
            // Created by Curator with parents, in transactions (a flush's log entry, a compaction's snapshot), by its leader latch.
            assertThat(tree).contains(ROOT + "/images/guarded/config", ROOT + "/images/guarded/lease", ROOT + "/sites/" + SITE_B, ROOT + "/acl-secured");
            assertThat(tree).anyMatch(path -> path.startsWith(ROOT + "/images/guarded/snap/"));
            assertThat(tree).anyMatch(path -> path.startsWith(ROOT + "/scheduler/leader/"));
            for (String path : tree) {
                assertThat(controllers.acl(path)).as("ACL of %s", path).isEqualTo(controllersOnly);
                stranger.assertLockedOut(path);
                impostor.assertLockedOut(path);
            }
            assertThat(controllers.tree(ROOT)).as("the znodes after every attempt").isEqualTo(tree);
            System.out.printf("ZooKeeperSecurityIT: %d znodes under %s, each the controllers' only; 7 reads and changes of each refused "
                    + "to a client without the secret and to one with another%n", tree.size(), ROOT);
        }
        assertThat(first.open("guarded", SITE_A, OPEN_MODE_READ, 0).blocks()).isEqualTo(delta.entries());
    }
}
