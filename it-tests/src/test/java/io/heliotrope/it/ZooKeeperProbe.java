package io.heliotrope.it;

import io.heliotrope.controller.zookeeper.ControllerAcl;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A plain ZooKeeper client, as an outsider or an operator would use one: anonymous, or
 * authenticated with a secret as the controllers are ({@code addauth digest heliotrope:SECRET}).
 */
final class ZooKeeperProbe implements AutoCloseable {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static final byte[] DATA = "mallory".getBytes(StandardCharsets.UTF_8);

    private final ZooKeeper zk;

    private ZooKeeperProbe(ZooKeeper zk) {
        this.zk = zk;
    }

    /** A client without any credentials. */
    static ZooKeeperProbe anonymous(String connectString) {
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(connectString, (int) ZooKeeperEnsemble.MAX_SESSION_TIMEOUT.toMillis(), event -> { });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Await.until("a ZooKeeper session at " + connectString, CONNECT_TIMEOUT, () -> zk.getState().isConnected());
        return new ZooKeeperProbe(zk);
    }

    /** A client that authenticates as the controllers do, with {@code secret}. */
    static ZooKeeperProbe withSecret(String connectString, String secret) {
        ZooKeeperProbe probe = anonymous(connectString);
        probe.zk.addAuthInfo("digest", (ControllerAcl.USER + ":" + secret).getBytes(StandardCharsets.UTF_8));
        return probe;
    }

    /** A client with the secret in {@code file}. */
    static ZooKeeperProbe withSecretFile(String connectString, Path file) {
        try {
            return withSecret(connectString, Files.readString(file).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code path} and every znode below it, parents first. */
    List<String> tree(String path) throws KeeperException, InterruptedException {
        List<String> paths = new ArrayList<>(List.of(path));
        for (String child : zk.getChildren(path, false)) {
            paths.addAll(tree(path + "/" + child));
        }
        return paths;
    }

    List<ACL> acl(String path) throws KeeperException, InterruptedException {
        return zk.getACL(path, new Stat());
    }

    List<String> children(String path) throws KeeperException, InterruptedException {
        return zk.getChildren(path, false);
    }

    /** Undoes what a controller with the secret did to {@code root}: every znode open to anyone, no marker; as every release before issue #27 left it. */
    void reopen(String root) throws KeeperException, InterruptedException {
        zk.delete(root + "/acl-secured", -1);
        for (String path : tree(root)) {
            zk.setACL(path, ControllerAcl.OPEN.acl(), -1);
        }
    }

    /** Every way to read or change {@code path} fails with NoAuth: data, children, ACL, a new child, new data, a new ACL, deletion (see below for the root). */
    void assertLockedOut(String path) {
        assertNoAuth(path, "read", () -> zk.getData(path, false, new Stat()));
        assertNoAuth(path, "list", () -> zk.getChildren(path, false));
        assertNoAuth(path, "read the ACL of", () -> zk.getACL(path, new Stat()));
        assertNoAuth(path, "create a child of", () -> zk.create(path + "/mallory", DATA, ControllerAcl.OPEN.acl(), CreateMode.PERSISTENT));
        assertNoAuth(path, "write", () -> zk.setData(path, DATA, -1));
        if (path.lastIndexOf('/') > 0) {
            assertNoAuth(path, "delete", () -> zk.delete(path, -1));
        } else {
            // Deleting is a permission of the parent: the root's is ZooKeeper's "/", open unless its operator closes it
            // (docs/security-zookeeper.md); the root is never empty once a controller ran, and ZooKeeper deletes no parent.
            assertThatThrownBy(() -> zk.delete(path, -1)).as("delete %s", path).isInstanceOf(KeeperException.NotEmptyException.class);
        }
        assertNoAuth(path, "open the ACL of", () -> zk.setACL(path, ControllerAcl.OPEN.acl(), -1));
    }

    private static void assertNoAuth(String path, String what, ThrowingCallable call) {
        assertThatThrownBy(call).as("%s %s", what, path).isInstanceOf(KeeperException.NoAuthException.class);
    }

    @Override
    public void close() {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
