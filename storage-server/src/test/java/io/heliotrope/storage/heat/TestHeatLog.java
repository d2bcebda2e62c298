package io.heliotrope.storage.heat;

import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.heat.HeatLog.Recorded;
import io.heliotrope.storage.peer.Peers.ImageRef;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

class TestHeatLog {
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final long NEWER = 100;

    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final HeatLog log = new HeatLog(now::get, new HeatConfig(Duration.ofMinutes(5), 1 << 20, RETENTION, 5, 0));
    private final ImageInfo disk = image("disk");

    @Test
    void anOpenSessionAnswersLiveAndAClosedOneWithWhatItHadAtTheEpochItClosedAt() {
        AtomicLong epoch = new AtomicLong(3);
        BlockHeat heat = log.open(disk, epoch::get);
        heat.record(4, 1);
        assertThat(heat(disk)).isEqualTo(new Answer(3, 4));
        heat.record(5, 2);
        heat.record(5, 1);
        epoch.set(4);
        assertThat(heat(disk)).isEqualTo(new Answer(4, 5, 4, 6));

        log.close(disk, heat, 4);
        heat.record(9, 3);

        assertThat(heat(disk)).isEqualTo(new Answer(4, 5, 4, 6));
        assertThat(log.heat(ImageRef.of(disk), NEWER, 2).blocks()).containsExactly(5, 4);
        assertThat(log.trackedBlocks()).isEqualTo(3);
    }

    @Test
    void heatOfTheAskingHoldingOrLaterIsNoHeat() {
        BlockHeat heat = log.open(disk, () -> 7);
        heat.record(1, 1);

        assertThat(log.heat(ImageRef.of(disk), 7, 10)).isSameAs(Recorded.NONE);
        assertThat(log.heat(ImageRef.of(disk), 8, 10).epoch()).isEqualTo(7);
        log.close(disk, heat, 7);
        assertThat(log.heat(ImageRef.of(disk), 7, 10)).isSameAs(Recorded.NONE);
        assertThat(log.heat(ImageRef.of(image("other")), NEWER, 10)).isSameAs(Recorded.NONE);
    }

    @Test
    void aClosedSessionsHeatIsKeptForTheRetention() {
        closed(disk, 2, 1, 2);

        now.addAndGet(RETENTION.toMillis() - 1);
        assertThat(heat(disk)).isEqualTo(new Answer(2, 1, 2));
        now.addAndGet(1);
        assertThat(heat(disk)).isEqualTo(new Answer(0));
        assertThat(log.trackedBlocks()).isZero();
    }

    @Test
    void pastTheSiteWideBoundTheOldestClosedSessionsGoFirst() {
        ImageInfo other = image("other");
        ImageInfo third = image("third");
        closed(disk, 2, 1, 2);
        BlockHeat open = log.open(image("open"), () -> 9);
        open.record(0, 8);
        closed(other, 3, 3, 4);
        now.addAndGet(1);
        closed(third, 4, 5, 6);

        assertThat(heat(disk)).as("dropped: 6 blocks closed, 5 kept at most").isEqualTo(new Answer(0));
        assertThat(heat(other)).isEqualTo(new Answer(3, 3, 4));
        assertThat(heat(third)).isEqualTo(new Answer(4, 5, 6));
        assertThat(log.trackedBlocks()).as("the open session's 8 blocks and 4 kept").isEqualTo(12);
    }

    @Test
    void aNewerSessionReplacesTheOldAndAnOlderOneClosingLateChangesNothing() {
        closed(disk, 2, 1, 2);
        BlockHeat second = log.open(disk, () -> 5);
        assertThat(heat(disk)).isEqualTo(new Answer(5));
        second.record(7, 1);
        BlockHeat third = log.open(disk, () -> 6);
        third.record(8, 1);

        log.close(disk, second, 5);

        assertThat(heat(disk)).isEqualTo(new Answer(6, 8));
        assertThat(log.trackedBlocks()).isEqualTo(1);
    }

    @Test
    void aCopyWithoutIdentityIsFoundByItsNameAndOneWithAnotherIdentityIsNot() {
        ImageInfo legacy = new ImageInfo(2, "legacy", 64 * BLOCK_SIZE, Instant.EPOCH, null);
        closed(legacy, 3, 9);
        closed(disk, 4, 1);

        assertThat(log.heat(new ImageRef(UUID.randomUUID(), "legacy", legacy.sizeBytes()), NEWER, 10).blocks()).containsExactly(9);
        assertThat(log.heat(new ImageRef(UUID.randomUUID(), "disk", disk.sizeBytes()), NEWER, 10)).isSameAs(Recorded.NONE);
    }

    private void closed(ImageInfo image, long epoch, long... blocks) {
        BlockHeat heat = log.open(image, () -> epoch);
        for (long block : blocks) {
            heat.record(block, 1);
        }
        log.close(image, heat, epoch);
    }

    private Answer heat(ImageInfo image) {
        Recorded recorded = log.heat(ImageRef.of(image), NEWER, 100);
        return new Answer(recorded.epoch(), recorded.blocks());
    }

    private static ImageInfo image(String name) {
        return new ImageInfo(1, name, 64 * BLOCK_SIZE, Instant.EPOCH, UUID.randomUUID());
    }

    /** A heat as a value, for equality. */
    private record Answer(long epoch, List<Long> blocks) {
        Answer(long epoch, long... blocks) {
            this(epoch, Arrays.stream(blocks).boxed().toList());
        }
    }
}
