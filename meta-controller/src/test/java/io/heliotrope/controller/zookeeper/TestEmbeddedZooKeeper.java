package io.heliotrope.controller.zookeeper;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestEmbeddedZooKeeper {
    @TempDir
    Path directory;
    private final ZooKeeperMetrics metrics = new ZooKeeperMetrics(new SimpleMeterRegistry());

    @Test
    void keepsItsDataAcrossRestarts() throws IOException {
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(directory, 0);
             ZooKeeperStore zk = ZooKeeperStore.connect(server.connectString(), Duration.ofSeconds(10), metrics)) {
            assertThat(server.connectString()).startsWith("127.0.0.1:");
            zk.ensurePath("/kept/here");
            assertThat(zk.create("/kept/here/node", "data".getBytes(StandardCharsets.UTF_8))).isTrue();
            assertThat(zk.create("/kept/here/node", new byte[0])).isFalse();
        }
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(directory, 0);
             ZooKeeperStore zk = ZooKeeperStore.connect(server.connectString(), Duration.ofSeconds(10), metrics)) {
            assertThat(zk.read("/kept/here/node")).hasValueSatisfying(node ->
                    assertThat(new String(node.value(), StandardCharsets.UTF_8)).isEqualTo("data"));
        }
    }

    /** A client whose ensemble is gone says so at once, naming ZooKeeper, and is connected again once the ensemble is back. */
    @Test
    void aClientWithoutItsEnsembleFailsAtOnceUntilItIsBack() throws IOException {
        EmbeddedZooKeeper server = EmbeddedZooKeeper.start(directory, 0);
        int port = Integer.parseInt(server.connectString().substring(server.connectString().lastIndexOf(':') + 1));
        try (ZooKeeperStore zk = ZooKeeperStore.connect(server.connectString(), Duration.ofSeconds(10), metrics)) {
            zk.checkConnected("open image 'vm'");
            server.close();
            awaitConnected(zk, false);
            assertThat(zk.health().connectString()).isEqualTo(server.connectString());
            assertThatThrownBy(() -> zk.checkConnected("open image 'vm'"))
                    .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                    .hasMessageStartingWith("cannot open image 'vm': ZooKeeper at " + server.connectString() + " is out of reach or has lost its quorum (for ");

            server = EmbeddedZooKeeper.start(directory, port);
            awaitConnected(zk, true);
            zk.checkConnected("open image 'vm'");
        } finally {
            server.close();
        }
    }

    private static void awaitConnected(ZooKeeperStore zk, boolean connected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (zk.health().connected() != connected) {
            assertThat(System.nanoTime() - deadline).as("time left for the client to be %s", connected ? "connected" : "disconnected").isNegative();
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
    }
}
