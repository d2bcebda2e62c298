package io.heliotrope.controller.zookeeper;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

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
}
