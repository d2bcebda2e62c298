package io.heliotrope.controller.zookeeper;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** On a real ZooKeeper: a controller with the secret secures an open tree once, and everything it creates after; no one else gets in. */
class TestAclMigration {
    private static final ControllerAcl CONTROLLERS = ControllerAcl.digest("the-clusters-secret-0123456789");
    private static final byte[] DATA = "x".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path directory;
    private static EmbeddedZooKeeper server;
    private final ZooKeeperLayout layout = new ZooKeeperLayout("/acl-" + UUID.randomUUID());

    @BeforeAll
    static void startZooKeeper() throws IOException {
        server = EmbeddedZooKeeper.start(directory, 0);
    }

    @AfterAll
    static void stopZooKeeper() {
        server.close();
    }

    @Test
    void anOpenTreeIsSecuredOnceAndEveryZnodeCreatedAfterIsSecured() throws Exception {
        try (ZooKeeperStore open = connect(ControllerAcl.OPEN)) {
            open.ensurePath(layout.image("vm").log());
            open.ensurePath(layout.sites());
            open.create(layout.site("virginia"), DATA);
            open.commit(new Transaction().create(layout.image("vm").config(), DATA).create(layout.image("vm").log() + "/0000000001", DATA));
        }
        try (ZooKeeperStore secured = connect(CONTROLLERS); ZooKeeperStore anonymous = connect(ControllerAcl.OPEN)) {
            // root, images, vm, log, log/1, config, sites, virginia
            assertThat(AclMigration.run(secured, layout)).isEqualTo(new AclMigration.Outcome(8, 8));
            assertThat(tree(secured.curator(), layout.root())).hasSize(9).allSatisfy(path ->
                    assertThat(secured.curator().getACL().forPath(path)).as(path).isEqualTo(CONTROLLERS.acl()));
            assertThat(AclMigration.run(secured, layout)).as("a second start").isEqualTo(new AclMigration.Outcome(0, 0));
            assertThat(secured.read(layout.image("vm").config())).hasValueSatisfying(node -> assertThat(node.value()).isEqualTo(DATA));

            secured.ensurePath(layout.rtt() + "/deep/er");
            secured.create(layout.site("taiwan"), DATA);
            secured.createSequential(layout.image("vm").log() + "/r-", DATA);
            secured.ensurePath(layout.vms());
            secured.createAll(List.of(layout.vm("a"), layout.vm("b")), List.of(DATA, DATA));
            secured.ensurePath(layout.applications());
            secured.commit(new Transaction().create(layout.application("web"), DATA));
            assertThat(tree(secured.curator(), layout.root())).hasSize(19).allSatisfy(path ->
                    assertThat(secured.curator().getACL().forPath(path)).as(path).isEqualTo(CONTROLLERS.acl()));

            CuratorFramework stranger = anonymous.curator();
            String config = layout.image("vm").config();
            assertNoAuth(() -> stranger.getData().forPath(config));
            assertNoAuth(() -> stranger.getChildren().forPath(layout.root()));
            assertNoAuth(() -> stranger.getACL().forPath(config));
            assertNoAuth(() -> stranger.setData().forPath(config, DATA));
            assertNoAuth(() -> stranger.create().forPath(layout.site("mallory"), DATA));
            assertNoAuth(() -> stranger.delete().forPath(layout.site("taiwan")));
            assertNoAuth(() -> stranger.setACL().withACL(ControllerAcl.OPEN.acl()).forPath(config));
            assertThatThrownBy(() -> anonymous.ensurePath(layout.sites() + "/mallory"))
                    .hasMessageEndingWith(" (the tree is secured: this controller needs the cluster's secret, --zookeeper-auth-file)");
        }
    }

    @Test
    void aControllerWithAnotherSecretIsRefusedAtItsStart() {
        try (ZooKeeperStore secured = connect(CONTROLLERS); ZooKeeperStore other = connect(ControllerAcl.digest("another-secret-0123456789"))) {
            secured.ensurePath(layout.images());
            AclMigration.run(secured, layout);

            assertThatThrownBy(() -> AclMigration.run(other, layout))
                    .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                    .hasMessage("cannot secure the znodes under " + layout.root() + " in ZooKeeper: KeeperErrorCode = NoAuth for " + layout.aclSecured()
                            + ": the tree is secured with another secret than this controller's; give every controller the same secret file");
        }
    }

    private static ZooKeeperStore connect(ControllerAcl acl) {
        return ZooKeeperStore.connect(server.connectString(), Duration.ofSeconds(10), acl, new ZooKeeperMetrics(new SimpleMeterRegistry()));
    }

    private static void assertNoAuth(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(KeeperException.NoAuthException.class);
    }

    private static List<String> tree(CuratorFramework client, String path) throws Exception {
        List<String> paths = new ArrayList<>(List.of(path));
        for (String child : client.getChildren().forPath(path)) {
            paths.addAll(tree(client, path + "/" + child));
        }
        return paths;
    }
}
