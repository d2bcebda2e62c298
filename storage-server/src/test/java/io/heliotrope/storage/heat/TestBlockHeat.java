package io.heliotrope.storage.heat;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class TestBlockHeat {
    private static final Duration HALF_LIFE = Duration.ofMinutes(5);

    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    @Test
    void aCountHalvesEveryHalfLifeWithoutATouch() {
        BlockHeat heat = heat(1 << 20);
        touch(heat, 1, 4);
        assertThat(heat.hottest(10)).containsExactly(1);

        later(HALF_LIFE);
        touch(heat, 2, 3);
        // Block 1 counts 4 >>> 1 = 2 now, block 2 counts 3.
        assertThat(heat.hottest(10)).containsExactly(2, 1);

        later(HALF_LIFE);
        // 1 each: equal counts go in block order.
        assertThat(heat.hottest(10)).containsExactly(1, 2);
        touch(heat, 2, 1);
        // A touch decays the count first: 3 >>> 1, plus 1.
        assertThat(heat.hottest(10)).containsExactly(2, 1);

        later(HALF_LIFE.multipliedBy(20));
        touch(heat, 3, 1);
        assertThat(heat.hottest(10)).as("counts long decayed are 0, still tracked").containsExactly(3, 1, 2);
    }

    @Test
    void countsSaturateRatherThanWrap() {
        BlockHeat heat = heat(1 << 20);
        touch(heat, 9, BlockHeat.MAX_COUNT + 5000);
        touch(heat, 8, BlockHeat.MAX_COUNT);
        touch(heat, 10, 10);

        assertThat(heat.hottest(10)).containsExactly(8, 9, 10);
    }

    @Test
    void pastTheBoundBlocksTouchedForTheFirstTimeAreNotTracked() {
        BlockHeat heat = heat(4);
        heat.record(0, 10);
        touch(heat, 2, 1);
        touch(heat, 7, 5);

        assertThat(heat.size()).isEqualTo(4);
        assertThat(heat.hottest(10)).containsExactly(2, 0, 1, 3);
    }

    @Test
    void hottestGivesAtMostTheBlocksAsked() {
        BlockHeat heat = heat(1 << 20);
        heat.record(0, 100_000);
        touch(heat, 77_777, 1);

        assertThat(heat.size()).isEqualTo(100_000);
        assertThat(heat.hottest(3)).containsExactly(77_777, 0, 1);
        assertThat(heat.hottest(0)).isEmpty();
        assertThat(heat.hottest(200_000)).hasSize(100_000).startsWith(77_777, 0).endsWith(LongStream.range(99_990, 100_000).toArray());
    }

    @Test
    void theBlocksTouchedFirstLeadInTheOrderTheyWereTouched() {
        BlockHeat heat = new BlockHeat(now::get, new HeatConfig(HALF_LIFE, 1 << 20, Duration.ofHours(1), 16L << 20, 2));
        touch(heat, 9, 1);
        touch(heat, 4, 1);
        touch(heat, 7, 5);
        touch(heat, 5, 3);
        touch(heat, 4, 1);

        assertThat(heat.hottest(10)).as("9 and 4 first, as touched; then 7 and 5 by count").containsExactly(9, 4, 7, 5);
        assertThat(heat.hottest(3)).containsExactly(9, 4, 7);
        assertThat(heat.hottest(1)).containsExactly(9);
    }

    private BlockHeat heat(int trackedBlocks) {
        return new BlockHeat(now::get, new HeatConfig(HALF_LIFE, trackedBlocks, Duration.ofHours(1), 16L << 20, 0));
    }

    private void later(Duration duration) {
        now.addAndGet(duration.toMillis());
    }

    private static void touch(BlockHeat heat, long block, int times) {
        for (int i = 0; i < times; i++) {
            heat.record(block, 1);
        }
    }
}
