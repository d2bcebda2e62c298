package io.heliotrope.storage.propagation;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TestPushQueue {
    private final AccessStats stats = new AccessStats();
    private final PushQueue queue = new PushQueue(stats, 1000, 1);

    @Test
    void pollsTheHighestPriorityFirst() {
        count(1, 10, 1);
        count(2, 40, 2);
        count(3, 5, 5);

        assertThat(pollAll()).containsExactly(2L, 1L, 3L);
        assertThat(queue.size()).isZero();
    }

    @Test
    void equalPrioritiesGoByReadsThenByBlock() {
        // With K = 1 these all come to 6: 1 * 4/2 + 4, 1 * 5/5 + 5, 1 * 3/1 + 3.
        queue.retune(1, 1);
        count(1, 4, 2);
        count(2, 5, 5);
        count(3, 3, 1);
        count(4, 4, 2);

        assertThat(pollAll()).containsExactly(2L, 1L, 4L, 3L);
    }

    @Test
    void blocksBelowSStayQueuedButAreNotPolled() {
        count(1, 1, 2);
        count(2, 0, 1);
        count(3, 9, 3);

        assertThat(pollAll()).containsExactly(3L);
        assertThat(queue.size()).isEqualTo(2);
        assertThat(queue.hasPushable()).isFalse();
    }

    @Test
    void readsAndWritesRerankAQueuedBlock() {
        count(1, 10, 1);
        count(2, 20, 1);
        count(3, 2, 1);

        for (int i = 0; i < 30; i++) {
            read(3);
        }
        write(2);
        write(2);
        // A read lifts a block that S kept back.
        count(4, 0, 1);
        read(4);
        read(4);
        read(4);

        assertThat(pollAll()).containsExactly(3L, 1L, 2L, 4L);
    }

    @Test
    void newKnobsRerankEveryBlock() {
        count(1, 100, 10);
        count(2, 12, 2);
        count(3, 3, 1);
        // K = 1000: ratios 10, 6, 3 decide. K = 0: reads decide. S = 5 drops block 3.
        queue.retune(0, 5);
        assertThat(pollAll()).containsExactly(1L, 2L);

        queue.add(stats.entry(1));
        queue.add(stats.entry(2));
        queue.retune(1000, 1);
        assertThat(pollAll()).containsExactly(1L, 2L, 3L);
    }

    @Test
    void addingAQueuedBlockKeepsOneEntry() {
        count(1, 5, 1);
        assertThat(queue.add(stats.entry(1))).isFalse();
        assertThat(queue.size()).isEqualTo(1);
        assertThat(pollAll()).containsExactly(1L);
        assertThat(queue.add(stats.entry(1))).isTrue();
    }

    @Test
    void pollsInPriorityOrderAmongManyBlocks() {
        for (long block = 0; block < 5_000; block++) {
            count(block, (block * 7919) % 1000, 1 + block % 7);
        }
        List<Long> polled = pollAll();
        for (int i = 1; i < polled.size(); i++) {
            assertThat(priority(polled.get(i - 1))).isGreaterThanOrEqualTo(priority(polled.get(i)));
        }
        assertThat(polled.size() + queue.size()).isEqualTo(5_000);
    }

    /** Adds reads and writes to a block and queues it. */
    private void count(long block, long reads, long writes) {
        int entry = stats.entry(block);
        for (long i = 0; i < reads; i++) {
            stats.addRead(entry);
        }
        for (long i = 0; i < writes; i++) {
            stats.addWrite(entry);
        }
        queue.add(entry);
    }

    private void read(long block) {
        int entry = stats.entry(block);
        stats.addRead(entry);
        queue.changed(entry);
    }

    private void write(long block) {
        int entry = stats.entry(block);
        stats.addWrite(entry);
        queue.add(entry);
    }

    private double priority(long block) {
        return stats.priority(stats.find(block), 1000, 1);
    }

    private List<Long> pollAll() {
        List<Long> blocks = new ArrayList<>();
        for (int entry = queue.poll(); entry >= 0; entry = queue.poll()) {
            blocks.add(stats.block(entry));
        }
        return blocks;
    }
}
