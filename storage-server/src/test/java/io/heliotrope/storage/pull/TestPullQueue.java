package io.heliotrope.storage.pull;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.heat.Heat;
import io.heliotrope.storage.view.IoGate;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class TestPullQueue {
    private final TestingSession session = new TestingSession(100, IoGate.opened()).elsewhere(0, 100, "a");

    @Test
    void theGroupsAroundMissesComeFirstThenTheHeatThenTheRestInBlockOrder() {
        PullQueue queue = new PullQueue(session, PullOrder.HEAT, PullConfig.DEFAULT);
        queue.missed(List.of(new GlobalBlock(33, 3, "a"), new GlobalBlock(35, 3, "a")));

        assertThat(drain(queue)).as("the rest waits for the heat").containsExactlyElementsOf(range(32, 48));

        queue.heat(List.of(new Heat("b", 4, new long[] {50, 7, 33}), new Heat("c", 2, new long[] {7, 99})));
        List<Long> expected = new ArrayList<>(List.of(50L, 7L, 99L));
        range(0, 100).stream().filter(block -> !expected.contains(block) && (block < 32 || block >= 48)).forEach(expected::add);
        assertThat(drain(queue)).containsExactlyElementsOf(expected);
        assertThat(queue.exhausted()).isTrue();
    }

    @Test
    void theRestGoesOnceTheHeatWasWaitedFor() {
        PullQueue queue = new PullQueue(session, PullOrder.HEAT, PullConfig.DEFAULT);
        assertThat(queue.next()).isNull();

        queue.heatWaited();

        assertThat(drain(queue)).containsExactlyElementsOf(range(0, 100));
    }

    @Test
    void blocksCurrentHereZeroMarkersAndBlocksTakenAreLeftOut() {
        session.wrote(10, 5);
        session.zero(20);
        PullQueue queue = new PullQueue(session, PullOrder.HEAT, PullConfig.DEFAULT);
        queue.missed(List.of(new GlobalBlock(3, 3, "a")));
        queue.heat(List.of(new Heat("b", 4, new long[] {12, 20, 1, 1, 500})));

        List<Long> taken = drain(queue);

        assertThat(taken).doesNotContain(10L, 11L, 12L, 13L, 14L, 20L).doesNotHaveDuplicates().hasSize(100 - 6);
        assertThat(taken.subList(0, 12)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 15L, 16L);
    }

    @Test
    void blockOrderTakesTheRestOnlyAndAtOnce() {
        PullQueue queue = new PullQueue(session, PullOrder.BLOCK, PullConfig.DEFAULT);
        queue.missed(List.of(new GlobalBlock(70, 3, "a")));

        assertThat(drain(queue)).containsExactlyElementsOf(range(0, 100));
    }

    @Test
    void theOldestMissesAreDroppedPastTheLimit() {
        PullConfig two = new PullConfig(PullConfig.DEFAULT.heatWait(), 1 << 20, 2, 16, PullConfig.DEFAULT.target(),
                1 << 20, 64 << 10, 32 << 20, PullConfig.DEFAULT.firstBackoff(), PullConfig.DEFAULT.longestBackoff());
        PullQueue queue = new PullQueue(session, PullOrder.HEAT, two);
        queue.missed(List.of(new GlobalBlock(1, 3, "a"), new GlobalBlock(20, 3, "a"), new GlobalBlock(40, 3, "a")));

        assertThat(drain(queue)).containsExactlyElementsOf(LongStream.concat(LongStream.range(16, 32), LongStream.range(32, 48)).boxed().toList());
    }

    @Test
    void aRescanTakesWhatIsStillStaleAgain() {
        PullQueue queue = new PullQueue(session, PullOrder.BLOCK, PullConfig.DEFAULT);
        drain(queue);
        session.wrote(0, 98);

        queue.rescan();

        assertThat(drain(queue)).containsExactly(98L, 99L);
    }

    private static List<Long> drain(PullQueue queue) {
        List<Long> taken = new ArrayList<>();
        for (GlobalBlock next = queue.next(); next != null; next = queue.next()) {
            taken.add(next.block());
        }
        return taken;
    }

    private static List<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().toList();
    }
}
