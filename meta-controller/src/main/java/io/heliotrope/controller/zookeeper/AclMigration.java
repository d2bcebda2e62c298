package io.heliotrope.controller.zookeeper;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Secures a tree that controllers without a secret left open (every release before issue #27):
 * sets the controllers' ACL on every znode under the root, once, then leaves a marker znode
 * ({@link ZooKeeperLayout#aclSecured()}) so that later starts check one znode instead of the tree.
 * <p>
 * The walk is top-down: a znode's ACL is set before its children are listed, so a child that a
 * controller without the secret creates meanwhile (a rolling upgrade) is created before the
 * listing, and is listed, or is refused. Two controllers may run it at once; a run cut short
 * leaves no marker, and the next one walks again.
 */
public final class AclMigration {
    private static final Logger log = LoggerFactory.getLogger(AclMigration.class);

    /** What one start found: the znodes it checked and those whose ACL it set; both 0 when the marker was there. */
    public record Outcome(int checked, int secured) {}

    private AclMigration() {}

    /** Secures every znode under {@code layout}'s root unless the marker says it is done; {@code zk} must be secured. */
    public static Outcome run(ZooKeeperStore zk, ZooKeeperLayout layout) {
        ControllerAcl acl = zk.acl();
        if (!acl.secured()) {
            throw new IllegalArgumentException("no secret to secure " + layout.root() + " with");
        }
        CuratorFramework client = zk.curator();
        String path = layout.aclSecured();
        try {
            if (client.checkExists().forPath(path) != null) {
                // Readable only with the secret: a controller given another one is told here, at its start.
                client.getData().forPath(path);
                return new Outcome(0, 0);
            }
            zk.ensurePath(layout.root());
            long start = System.nanoTime();
            Outcome outcome = walk(client, layout.root(), acl.acl());
            zk.create(path, ("secured " + outcome.checked() + " znodes").getBytes(StandardCharsets.UTF_8));
            if (outcome.secured() > 0) {
                log.info("ZooKeeper: set the controllers' ACL ({}) on {} of the {} znodes under {} in {} ms; they were open to anyone before",
                        acl, outcome.secured(), outcome.checked(), layout.root(), (System.nanoTime() - start) / 1_000_000);
            }
            return outcome;
        } catch (HeliotropeException e) {
            throw e;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String hint = e instanceof KeeperException.NoAuthException
                    ? ": the tree is secured with another secret than this controller's; give every controller the same secret file" : "";
            throw new HeliotropeException(e instanceof KeeperException.NoAuthException ? ErrorCode.INVALID_ARGUMENT : ErrorCode.STORAGE_FAILURE,
                    "cannot secure the znodes under " + layout.root() + " in ZooKeeper: " + e.getMessage() + hint, e);
        }
    }

    private static Outcome walk(CuratorFramework client, String root, List<ACL> acl) throws Exception {
        int checked = 0;
        int secured = 0;
        Deque<String> pending = new ArrayDeque<>(List.of(root));
        while (!pending.isEmpty()) {
            String path = pending.pop();
            try {
                if (!client.getACL().forPath(path).equals(acl)) {
                    client.setACL().withACL(acl).forPath(path);
                    secured++;
                }
                checked++;
                for (String child : client.getChildren().forPath(path)) {
                    pending.push(path + "/" + child);
                }
            } catch (KeeperException.NoNodeException e) {
                // deleted meanwhile
            }
        }
        return new Outcome(checked, secured);
    }
}
