package io.heliotrope.controller.service;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.CompactionPolicy;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Controllers keep no state of their own that matters: two of them over one ZooKeeper act as one. */
@ExtendWith(ZooKeeperExtension.class)
class TestTwoControllers {
    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private TestingController first;
    private TestingController second;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        String root = TestingController.newRoot();
        CompactionPolicy often = new CompactionPolicy(4, Long.MAX_VALUE, Duration.ofMinutes(10));
        first = new TestingController(zooKeeper, root, clock, often);
        second = new TestingController(zooKeeper, root, clock, often);
        first.registerSites("a", "b");
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
    }

    @Test
    void eachSeesTheOthersCommits() {
        first.createImage("vm", 1024);
        assertThat(await(second.service().listImages())).extracting(image -> image.config().name()).containsExactly("vm");
        assertThat(await(second.service().listSites())).extracting(site -> site.name()).containsExactly("a", "b");
        Lease lease = second.openForWrite("vm", "a");
        assertThat(await(first.service().getImage("vm")).lease()).isEqualTo(lease);

        BlockEntries one = BlockEntries.builder().add(1, Version.compose(lease.epoch(), 1), "a").build();
        BlockEntries two = BlockEntries.builder().add(2, Version.compose(lease.epoch(), 1), "a").build();
        first.flush("vm", "a", lease.epoch(), one);
        assertThat(await(second.service().getImage("vm")).currentBlocks()).containsEntry("a", 1L);
        second.flush("vm", "a", lease.epoch(), two);

        assertThat(await(first.service().getImage("vm")).currentBlocks()).containsEntry("a", 2L);
        assertThat(await(first.service().openImage("vm", "b", OpenMode.READ, 0, Duration.ZERO)).changes().deltas()).containsExactly(one, two);
    }

    /** A site whose flush reply was lost sends it again, with the same id, through the other controller: it is answered, not applied twice. */
    @Test
    void aFlushSentAgainThroughTheOtherControllerIsNotAppliedTwice() {
        first.createImage("vm", 1024);
        Lease lease = first.openForWrite("vm", "a");
        BlockEntries one = BlockEntries.builder().add(1, Version.compose(lease.epoch(), 1), "a").build();
        Flush flush = new Flush("vm", "a", lease.epoch(), false, "", one, false, "flush-1");
        long committed = await(first.service().flush(flush)).metaSeq();

        assertThat(await(second.service().flush(flush)).metaSeq()).isEqualTo(committed);
        assertThat(await(second.service().getImage("vm")).metaSeq()).isEqualTo(committed);

        BlockEntries two = BlockEntries.builder().add(2, Version.compose(lease.epoch(), 2), "a").build();
        Flush release = new Flush("vm", "a", lease.epoch(), true, "", two, false, "flush-2");
        long released = await(first.service().flush(release)).metaSeq();
        assertThat(released).isEqualTo(committed + 1);
        assertThat(await(second.service().flush(release)).metaSeq()).isEqualTo(released);
        Flush empty = new Flush("vm", "a", lease.epoch(), true, "", BlockEntries.EMPTY, false, "flush-3");
        assertThat(await(second.service().flush(empty)).metaSeq()).isEqualTo(released);
        assertThat(await(first.service().getImage("vm")).lease().held()).isFalse();
        // Without an id, a flush after the release is refused, as before.
        assertThatThrownBy(() -> await(second.service().flush(new Flush("vm", "a", lease.epoch(), true, "", two))))
                .hasMessageContaining("is stale: released");
    }

    @Test
    void concurrentFlushesAndCompactionsLoseNothing() {
        first.createImage("vm", 1 << 20);
        Lease lease = first.openForWrite("vm", "a");
        int rounds = 24;
        List<CompletableFuture<?>> calls = new ArrayList<>();
        BlockEntries.Builder expected = BlockEntries.builder();
        for (int round = 0; round < rounds; round++) {
            BlockEntries.Builder delta = BlockEntries.builder();
            for (int block = round * 100; block < round * 100 + 100; block++) {
                delta.add(block, Version.compose(lease.epoch(), 1), "a");
                expected.add(block, Version.compose(lease.epoch(), 1), "a");
            }
            TestingController via = round % 2 == 0 ? first : second;
            calls.add(via.service().flush(new Flush("vm", "a", lease.epoch(), false, "", delta.build())));
            if (round % 6 == 5) {
                calls.add((round % 4 == 1 ? first : second).service().compactImage("vm"));
            }
        }
        calls.forEach(TestingController::await);

        ImageStatus status = await(second.service().compactImage("vm"));

        assertThat(status.metaSeq()).isEqualTo(rounds);
        assertThat(status.snapshotSeq()).isEqualTo(rounds);
        assertThat(await(first.service().openImage("vm", "b", OpenMode.READ, 0, Duration.ZERO)).changes().snapshot()).contains(expected.build());
    }
}
