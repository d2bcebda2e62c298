package io.heliotrope.controller.metadata;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ImageStatus;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(ZooKeeperExtension.class)
class TestMetadataLog {
    private static final long BLOCKS = 4L << 20;

    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private final String root = TestingController.newRoot();
    private final ImagePaths paths = new ZooKeeperLayout(root).image("vm");
    private TestingController controller;
    private ControllerService service;
    private Lease lease;

    private void start(EmbeddedZooKeeper zooKeeper, CompactionPolicy policy) {
        controller = new TestingController(zooKeeper, root, clock, policy);
        service = controller.service();
        controller.registerSites("a", "b");
        controller.createImage("vm", BLOCKS);
        lease = controller.openForWrite("vm", "a");
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void largeFlushesReadBackExactly(EmbeddedZooKeeper zooKeeper) {
        start(zooKeeper, TestingController.MANUAL);
        Random random = new Random(1);
        long seq = 0;
        long loggedBefore = 0;
        for (int count : new int[] {100_000, 1_000_000}) {
            BlockEntries entries = randomEntries(random, count, lease.epoch());

            long start = System.nanoTime();
            Flushed flushed = flush(entries);
            long flushedAt = System.nanoTime();
            Changes changes = changesSince(seq);
            long readAt = System.nanoTime();

            long bytes = flushed.meta().loggedBytes() - loggedBefore;
            System.out.printf("flush of %d entries: %d ms; read back: %d ms; %d bytes in ZooKeeper (%.3f bytes/block)%n",
                    count, (flushedAt - start) / 1_000_000, (readAt - flushedAt) / 1_000_000, bytes, (double) bytes / count);
            loggedBefore = flushed.meta().loggedBytes();
            seq++;
            assertThat(flushed.metaSeq()).isEqualTo(seq);
            assertThat(flushed.blocks()).isEqualTo(entries.size());
            assertThat(changes).isEqualTo(new Changes(seq, Optional.empty(), List.of(entries)));
        }
        ImageStatus status = await(service.getImage("vm"));
        BlockEntries view = changesSince(0).deltas().stream().reduce(BlockEntries.EMPTY, (a, b) -> BlockEntries.apply(a, List.of(b)));
        assertThat(status.currentBlocks()).isEqualTo(Map.of("a", view.countByHolder()[1]));
        assertThat(status.zeroBlocks()).isEqualTo(view.countByHolder()[0]);
        // 100,000 entries fit inline in their record; a million go to staged chunks.
        assertThat(controller.zk().children(paths.staging())).hasSize(1);
    }

    @Test
    void aSiteWithACachedSeqGetsOnlyTheTail(EmbeddedZooKeeper zooKeeper) {
        start(zooKeeper, TestingController.MANUAL);
        List<BlockEntries> deltas = flushSeveral(3);

        assertThat(changesSince(1)).isEqualTo(new Changes(3, Optional.empty(), deltas.subList(1, 3)));
        assertThat(changesSince(3)).isEqualTo(new Changes(3, Optional.empty(), List.of()));
        assertThat(changesSince(9)).isEqualTo(new Changes(3, Optional.of(BlockEntries.EMPTY), deltas));
    }

    @Test
    void compactionKeepsTheViewAndFarBehindSitesGetSnapshotAndTail(EmbeddedZooKeeper zooKeeper) {
        start(zooKeeper, TestingController.MANUAL);
        List<BlockEntries> early = flushSeveral(4);
        ImageStatus before = await(service.getImage("vm"));

        ImageStatus after = await(service.compactImage("vm"));

        assertThat(after.snapshotSeq()).isEqualTo(4);
        assertThat(after.currentBlocks()).isEqualTo(before.currentBlocks());
        assertThat(after.zeroBlocks()).isEqualTo(before.zeroBlocks());
        assertThat(controller.zk().children(paths.log())).isEmpty();
        List<BlockEntries> late = flushSeveral(2);
        assertThat(controller.zk().children(paths.log())).containsExactly("0000000005", "0000000006");

        Changes changes = changesSince(2);
        assertThat(changes.metaSeq()).isEqualTo(6);
        assertThat(changes.snapshot()).contains(BlockEntries.apply(BlockEntries.EMPTY, early));
        assertThat(changes.deltas()).isEqualTo(late);
        assertThat(changesSince(5).deltas()).containsExactly(late.get(1));
    }

    @Test
    void theLogIsCompactedOnItsOwnOnceLong(EmbeddedZooKeeper zooKeeper) {
        start(zooKeeper, new CompactionPolicy(3, Long.MAX_VALUE, Duration.ofMinutes(10)));
        List<BlockEntries> deltas = flushSeveral(4);

        ImageStatus status = await(service.getImage("vm"));

        assertThat(status.snapshotSeq()).isEqualTo(4);
        assertThat(changesSince(0)).isEqualTo(new Changes(4, Optional.of(BlockEntries.apply(BlockEntries.EMPTY, deltas)), List.of()));
    }

    @Test
    void stagedChunksWithoutACommitAreInvisibleAndSweptWhenOld(EmbeddedZooKeeper zooKeeper) {
        start(zooKeeper, TestingController.MANUAL);
        List<BlockEntries> deltas = flushSeveral(1);
        byte[] payload = EntriesCodec.encode(randomEntries(new Random(2), 200_000, lease.epoch()), EntriesCodec.Effort.FAST);
        new PayloadStore(controller.zk(), clock).place(paths, payload, "crashed");
        assertThat(controller.zk().children(paths.staging())).hasSize(1);

        assertThat(changesSince(0)).isEqualTo(new Changes(1, Optional.empty(), deltas));
        await(service.compactImage("vm"));
        assertThat(controller.zk().children(paths.staging())).hasSize(1);
        clock.advance(Duration.ofMinutes(11));
        ImageStatus status = await(service.compactImage("vm"));

        assertThat(controller.zk().children(paths.staging())).isEmpty();
        assertThat(status.metaSeq()).isEqualTo(1);
        assertThat(changesSince(0).snapshot()).contains(deltas.get(0));
    }

    @Test
    void entriesAreCheckedAgainstImageSiteAndEpoch(EmbeddedZooKeeper zooKeeper) {
        start(zooKeeper, TestingController.MANUAL);
        long epoch = lease.epoch();
        assertRefused(() -> flush(BlockEntries.builder().add(BLOCKS, Version.compose(epoch, 1), "a").build()), ErrorCode.OUT_OF_RANGE,
                "image 'vm': block 4194304 is beyond the end of the image (4194304 blocks)");
        assertRefused(() -> flush(BlockEntries.builder().add(-1, Version.compose(epoch, 1), "a").build()), ErrorCode.OUT_OF_RANGE,
                "image 'vm': block 18446744073709551615 is beyond the end of the image (4194304 blocks)");
        assertRefused(() -> flush(BlockEntries.builder().add(1, Version.compose(epoch, 1), "b").build()), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': site a flushed blocks held by site b; a flush names its own site or a zero marker");
        assertRefused(() -> flush(BlockEntries.builder().addZero(1, Version.compose(epoch + 1, 0)).build()), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': block 1 has version 2.0; versions must be non-zero and of epochs 1 to 1, those site a has held the lease at since its grant");
        assertRefused(() -> flush(BlockEntries.builder().add(1, 0, "a").build()), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': block 1 has version 0.0; versions must be non-zero and of epochs 1 to 1, those site a has held the lease at since its grant");
        assertThat(await(service.getImage("vm")).metaSeq()).isZero();
    }

    @Test
    void anEmptyFlushExtendsTheLeaseWithoutANewDelta(EmbeddedZooKeeper zooKeeper) {
        start(zooKeeper, TestingController.MANUAL);
        flushSeveral(1);
        clock.advance(Duration.ofSeconds(5));

        Flushed flushed = flush(BlockEntries.EMPTY);

        assertThat(flushed.metaSeq()).isEqualTo(1);
        assertThat(flushed.blocks()).isZero();
        assertThat(flushed.lease().expiresEpochMillis()).isEqualTo(clock.millis() + TestingController.LEASE_TTL.toMillis());
    }

    private Flushed flush(BlockEntries entries) {
        return controller.flush("vm", "a", lease.epoch(), entries);
    }

    private Changes changesSince(long cachedMetaSeq) {
        return await(service.openImage("vm", "b", OpenMode.READ, cachedMetaSeq, Duration.ZERO)).changes();
    }

    /** Deltas of 1,000 random entries each, so that later ones overwrite some blocks of earlier ones. */
    private List<BlockEntries> flushSeveral(int count) {
        Random random = new Random(count);
        List<BlockEntries> deltas = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            BlockEntries.Builder builder = BlockEntries.builder();
            for (int j = 0; j < 1000; j++) {
                long version = Version.compose(lease.epoch(), i + 1);
                if (random.nextInt(10) == 0) {
                    builder.addZero(random.nextInt(5000), version);
                } else {
                    builder.add(random.nextInt(5000), version, "a");
                }
            }
            BlockEntries delta = builder.build();
            flush(delta);
            deltas.add(delta);
        }
        return deltas;
    }

    private static BlockEntries randomEntries(Random random, int count, long epoch) {
        BlockEntries.Builder builder = BlockEntries.builder();
        int site = builder.site("a");
        long block = 0;
        for (int i = 0; i < count; i++) {
            block += 1 + random.nextInt(4);
            builder.add(block, Version.compose(epoch, 1 + random.nextInt(1000)), random.nextInt(50) == 0 ? 0 : site);
        }
        return builder.build();
    }
}
