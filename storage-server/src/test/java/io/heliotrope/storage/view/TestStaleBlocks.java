package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import org.junit.jupiter.api.Test;

import java.util.SortedMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class TestStaleBlocks {
    private static final int BLOCKS = 64;

    @Test
    void aCopyOfARangeHoldsItsStaleEntriesAndNoOthers() {
        ConcurrentSkipListMap<Long, GlobalBlock> stale = new ConcurrentSkipListMap<>();
        for (long block = 0; block < 10; block += 2) {
            stale.put(block, new GlobalBlock(block, 7, "a"));
        }

        SortedMap<Long, GlobalBlock> copy = StaleBlocks.copyOf(stale, 3, 4);
        stale.remove(4L);

        assertThat(copy.keySet()).containsExactly(4L, 6L);
        assertThat(StaleBlocks.copyOf(new ConcurrentSkipListMap<>(), 0, 10)).isEmpty();
    }

    /** Blocks turning current (a fetch or the pull storing them) while a read copies its range: never a failure. */
    @Test
    void copiesWhileBlocksTurnCurrentConcurrently() throws InterruptedException {
        ConcurrentSkipListMap<Long, GlobalBlock> stale = new ConcurrentSkipListMap<>();
        AtomicBoolean copying = new AtomicBoolean(true);
        Thread fetches = new Thread(() -> {
            while (copying.get()) {
                for (long block = 0; block < BLOCKS; block++) {
                    stale.put(block, new GlobalBlock(block, 1, "a"));
                }
                for (long block = 0; block < BLOCKS; block++) {
                    stale.remove(block);
                }
            }
        });
        fetches.start();
        try {
            for (int i = 0; i < 200_000; i++) {
                SortedMap<Long, GlobalBlock> copy = StaleBlocks.copyOf(stale, 0, BLOCKS);
                assertThat(copy.size()).isBetween(0, BLOCKS);
            }
        } finally {
            copying.set(false);
            fetches.join();
        }
    }
}
