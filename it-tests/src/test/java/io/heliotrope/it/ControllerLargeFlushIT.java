package io.heliotrope.it;

import io.heliotrope.it.ControllerClient.Opened;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;
import java.util.Random;

import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_READ;
import static org.assertj.core.api.Assertions.assertThat;

/** A million dirty blocks, far more than one ZooKeeper request holds, commit as one delta and read back exactly. */
class ControllerLargeFlushIT {
    private static final long SIZE = 1L << 40;
    private static final int BLOCKS = 1_000_000;
    private static final String SITE_A = "site-a";
    private static final String SITE_B = "site-b";

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1).withSites(SITE_A, SITE_B);

    @Test
    void millionBlockFlushReadsBackExactly() {
        ControllerClient client = cluster.client(0);
        long epoch = client.createAndOpenForWrite("large", SIZE, SITE_A);
        Delta delta = Delta.random(new Random(42), BLOCKS, SIZE / 4096, SITE_A, epoch);

        FlushResponse flushed = client.flush("large", SITE_A, epoch, delta, true);

        assertThat(flushed.getBlocks()).isEqualTo(BLOCKS);
        long zeros = delta.entries().values().stream().filter(BlockVersion::isZero).count();
        ImageStatus status = client.status("large");
        assertThat(status.getMetaSeq()).isEqualTo(flushed.getMetaSeq());
        assertThat(status.getCurrentBlocksList()).containsExactly(SiteBlocks.newBuilder().setSite(SITE_A).setBlocks(BLOCKS - zeros).build());
        assertThat(status.getZeroBlocks()).isEqualTo(zeros);
        Opened opened = client.open("large", SITE_B, OPEN_MODE_READ, 0);
        assertThat(opened.metaSeq()).isEqualTo(flushed.getMetaSeq());
        assertSameBlocks(opened.blocks(), delta);
    }

    @Test
    void compactedMillionBlocksReadBackExactly() {
        ControllerClient client = cluster.client(0);
        long epoch = client.createAndOpenForWrite("compacted", SIZE, SITE_A);
        Delta delta = Delta.random(new Random(7), BLOCKS, SIZE / 4096, SITE_A, epoch);
        FlushResponse flushed = client.flush("compacted", SITE_A, epoch, delta, true);

        ImageStatus compacted = client.compact("compacted");

        assertThat(compacted.getSnapshotSeq()).isEqualTo(flushed.getMetaSeq());
        assertThat(compacted.getMetaSeq()).isEqualTo(flushed.getMetaSeq());
        Opened opened = client.open("compacted", SITE_B, OPEN_MODE_READ, 0);
        assertThat(opened.snapshot()).as("served from the snapshot").isTrue();
        assertThat(opened.metaSeq()).isEqualTo(flushed.getMetaSeq());
        assertSameBlocks(opened.blocks(), delta);
    }

    /** Compares a million entries without printing them all when they differ. */
    private static void assertSameBlocks(Map<Long, BlockVersion> actual, Delta expected) {
        long matching = expected.countVisibleIn(actual);
        if (matching != expected.size() || actual.size() != expected.size()) {
            Map.Entry<Long, BlockVersion> firstDifferent = expected.entries().entrySet().stream()
                    .filter(entry -> !entry.getValue().equals(actual.get(entry.getKey())))
                    .findFirst()
                    .orElse(null);
            throw new AssertionError("read back %d entries, %d of %d flushed entries match; first that does not: %s, read back as %s".formatted(
                    actual.size(), matching, expected.size(), firstDifferent, firstDifferent == null ? null : actual.get(firstDifferent.getKey())));
        }
    }
}
