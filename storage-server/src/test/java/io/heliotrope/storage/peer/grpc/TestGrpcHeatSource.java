package io.heliotrope.storage.peer.grpc;

import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.heat.BlockHeat;
import io.heliotrope.storage.heat.Heat;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.TestingSiteDirectory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** Site a asks sites b, c and d for their heat over gRPC on 127.0.0.1, as a new holder does. */
class TestGrpcHeatSource {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** For the calls that must time out. */
    private static final Duration SHORT_TIMEOUT = Duration.ofSeconds(1);

    private final TestingSiteDirectory directory = new TestingSiteDirectory("a").put("a", "127.0.0.1:1");
    private final TestingPeerSite b = new TestingPeerSite("b", directory);
    private final TestingPeerSite c = new TestingPeerSite("c", directory);
    private final TestingPeerSite d = new TestingPeerSite("d", directory);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PeerMetrics metrics = new PeerMetrics(registry);
    private final GrpcPeers peers = new GrpcPeers("a", directory.put("b", b.address()).put("c", c.address()).put("d", d.address()), metrics,
            new GrpcPeersConfig(2, Duration.ofSeconds(10)));
    private final GrpcHeatSource source = new GrpcHeatSource("a", directory, peers, metrics, TIMEOUT);
    private final ImageInfo disk = new ImageInfo(1, "disk", 1024 * BLOCK_SIZE, Instant.EPOCH, UUID.randomUUID());

    TestGrpcHeatSource() throws IOException {}

    @AfterEach
    void close() {
        peers.close();
        b.close();
        c.close();
        d.close();
    }

    @Test
    void everyOtherSiteIsAskedAndTheAnswersComeNewestEpochFirstWithoutTheAskingHoldingsOwn() {
        BlockHeat closed = b.heats.open(disk, () -> 3);
        closed.record(1, 2);
        closed.record(2, 1);
        b.heats.close(disk, closed, 3);
        c.heats.open(disk, () -> 5).record(7, 1);

        List<Heat> heats = source.heat(disk, 6, 100).join();

        assertThat(heats).extracting(Heat::site, Heat::epoch).containsExactly(
                tuple("c", 5L), tuple("b", 3L));
        assertThat(heats.get(0).blocks()).containsExactly(7);
        assertThat(heats.get(1).blocks()).as("in the order first touched").containsExactly(1, 2);
        assertThat(source.heat(disk, 5, 1).join()).singleElement().satisfies(heat -> {
            assertThat(heat.site()).isEqualTo("b");
            assertThat(heat.blocks()).containsExactly(1);
        });
        assertThat(b.registry.get("heliotrope.heat.served.blocks").counter().count()).isEqualTo(3);
    }

    @Test
    void aSiteThatDoesNotAnswerInTimeOrCannotBeReachedIsLeftOutAndCountedAsFailed() throws Exception {
        c.heats.open(disk, () -> 4).record(9, 1);
        assertThat(source.heat(disk, 6, 100).join()).as("the connections are up").hasSize(1);
        CountDownLatch stuck = new CountDownLatch(1);
        d.heats.open(disk, () -> {
            awaitUninterruptibly(stuck);
            return 2;
        });
        directory.put("e", "127.0.0.1:1");
        try {
            long start = System.nanoTime();
            List<Heat> heats = new GrpcHeatSource("a", directory, peers, metrics, SHORT_TIMEOUT).heat(disk, 6, 100).get(5, TimeUnit.SECONDS);

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SHORT_TIMEOUT.multipliedBy(4));
            assertThat(heats).extracting(Heat::site).containsExactly("c");
            assertThat(failures("d")).isEqualTo(1);
            assertThat(failures("e")).isEqualTo(1);
            assertThat(failures("b")).as("no heat is an answer").isZero();
        } finally {
            stuck.countDown();
        }
    }

    private double failures(String peer) {
        return registry.get("heliotrope.peer.failures").tag("peer", peer).tag("call", "heat").counter().count();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
