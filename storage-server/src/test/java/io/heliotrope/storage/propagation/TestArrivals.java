package io.heliotrope.storage.propagation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TestArrivals {
    private final AccessStats stats = new AccessStats();
    private final PushQueue queue = new PushQueue(stats, 1000, 1);
    private final Arrivals arrivals = new Arrivals(queue);

    @Test
    void theOldestIsTheFirstQueuedOfThoseStillQueued() {
        assertThat(arrivals.oldest()).isEqualTo(-1);
        queue(1, 2, 100);
        queue(2, 1, 200);
        queue(3, 0, 300);
        assertThat(arrivals.oldest()).isEqualTo(100);

        // Block 1 goes first (the most reads), block 2 next; block 3 (never read) stays.
        queue.poll();
        assertThat(arrivals.oldest()).isEqualTo(200);
        queue.poll();
        assertThat(arrivals.oldest()).isEqualTo(300);
    }

    @Test
    void aBlockQueuedAgainAfterItWasPushedCountsFromItsNewArrival() {
        queue(1, 1, 100);
        queue.poll();
        queue(2, 0, 150);
        queue(1, 1, 200);

        assertThat(arrivals.oldest()).isEqualTo(150);
        queue.poll();
        assertThat(arrivals.oldest()).as("the record of block 1 at 100 is not taken for its arrival at 200").isEqualTo(150);
    }

    @Test
    void recordsOfBlocksGoneStayInProportionToTheQueue() {
        // Block 0 stays queued all along (never read), in front of the records of every block pushed after it.
        queue(0, 0, 1);
        for (int block = 1; block <= 10_000; block++) {
            queue(block, 1, block);
            assertThat(queue.poll()).isEqualTo(stats.entry(block));
        }

        assertThat(arrivals.records()).isLessThanOrEqualTo(2 * queue.size() + 65);
        assertThat(arrivals.oldest()).isEqualTo(1);
    }

    /** Writes a block, reads it {@code reads} times and queues it at {@code time}. */
    private void queue(long block, int reads, long time) {
        int entry = stats.entry(block);
        stats.addWrite(entry);
        for (int i = 0; i < reads; i++) {
            stats.addRead(entry);
        }
        assertThat(queue.add(entry)).isTrue();
        arrivals.add(entry, time);
    }
}
