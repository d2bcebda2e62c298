package io.heliotrope.controller.zookeeper;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.controller.zookeeper.ZooKeeperMetrics.Op;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Secures a tree that controllers without a secret left open (every release before issue #27):
 * sets the controllers' ACL on every znode under the root, once, then leaves a marker znode
 * ({@link ZooKeeperLayout#aclSecured()}) so that later starts check one znode instead of the tree.
 * <p>
 * The walk is top-down, a level at a time: a znode's ACL is set before its children are listed, so a child that a
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
        String path = layout.aclSecured();
        try {
            if (zk.curator().checkExists().forPath(path) != null) {
                // Readable only with the secret: a controller given another one is told here, at its start.
                zk.curator().getData().forPath(path);
                return new Outcome(0, 0);
            }
            zk.ensurePath(layout.root());
            long start = System.nanoTime();
            Outcome outcome = walk(zk, layout.root(), acl.acl());
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

    /**
     * Level by level, each level's requests pipelined: the ACLs, those to set, then the children.
     * Every reply of a level arrives before the next step is sent, so a znode's ACL is set before
     * its children are listed.
     */
    private static Outcome walk(ZooKeeperStore zk, String root, List<ACL> acl) throws KeeperException {
        CuratorFramework client = zk.curator();
        int checked = 0;
        int secured = 0;
        List<String> level = List.of(root);
        while (!level.isEmpty()) {
            List<String> present = new ArrayList<>();
            List<String> open = new ArrayList<>();
            List<CuratorEvent> acls = zk.pipeline(Op.READ_MANY, "read the ACL of",
                    requests(level, (path, callback) -> client.getACL().inBackground(callback).forPath(path)));
            for (CuratorEvent event : acls) {
                if (found(event)) {
                    present.add(event.getPath());
                    if (!event.getACLList().equals(acl)) {
                        open.add(event.getPath());
                    }
                }
            }
            List<CuratorEvent> set = zk.pipeline(Op.WRITE, "set the ACL of",
                    requests(open, (path, callback) -> client.setACL().withACL(acl).inBackground(callback).forPath(path)));
            for (CuratorEvent event : set) {
                secured += found(event) ? 1 : 0;
            }
            checked += present.size();
            List<String> next = new ArrayList<>();
            List<CuratorEvent> children = zk.pipeline(Op.LIST, "list",
                    requests(present, (path, callback) -> client.getChildren().inBackground(callback).forPath(path)));
            for (CuratorEvent event : children) {
                if (found(event)) {
                    event.getChildren().forEach(child -> next.add(event.getPath() + "/" + child));
                }
            }
            level = next;
        }
        return new Outcome(checked, secured);
    }

    private interface Background {
        void send(String path, BackgroundCallback callback) throws Exception;
    }

    private static List<ZooKeeperStore.Request> requests(List<String> paths, Background background) {
        return paths.stream().map(path -> (ZooKeeperStore.Request) callback -> background.send(path, callback)).toList();
    }

    /** Whether the request found its znode: false when it was deleted meanwhile; a failure otherwise. */
    private static boolean found(CuratorEvent event) throws KeeperException {
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code == KeeperException.Code.NONODE) {
            return false;
        }
        if (code != KeeperException.Code.OK) {
            throw KeeperException.create(code, event.getPath());
        }
        return true;
    }
}
