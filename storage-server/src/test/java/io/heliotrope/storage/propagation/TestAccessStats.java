package io.heliotrope.storage.propagation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TestAccessStats {
    @Test
    void priorityIsKTimesTheReadWriteRatioPlusReads() {
        assertThat(AccessStats.priority(30, 3, 1000, 1)).isEqualTo(10_030);
        assertThat(AccessStats.priority(5, 5, 1000, 1)).isEqualTo(1005);
    }

    @Test
    void aBlockNeverWrittenOrReadLessThanSTimesItsWritesIsNotPushed() {
        assertThat(AccessStats.priority(100, 0, 1000, 1)).isEqualTo(-1);
        assertThat(AccessStats.priority(0, 0, 1000, 0)).isEqualTo(-1);
        assertThat(AccessStats.priority(2, 3, 1000, 1)).isEqualTo(-1);
        assertThat(AccessStats.priority(0, 1, 1000, 0)).isEqualTo(0);
    }

    @Test
    void kAndSAreRealNumbers() {
        assertThat(AccessStats.priority(1, 4, 0.5, 0.25)).isCloseTo(0.5 * 0.25 + 1, within(1e-12));
        assertThat(AccessStats.priority(1, 5, 0.5, 0.25)).isEqualTo(-1);
        assertThat(AccessStats.priority(3, 2, 0.5, 1.5)).isCloseTo(0.75 + 3, within(1e-12));
        assertThat(AccessStats.priority(3, 2, 0.5, 1.51)).isEqualTo(-1);
    }

    @Test
    void countsReadsAndWritesPerBlock() {
        AccessStats stats = new AccessStats();
        int first = stats.entry(7);
        stats.addRead(first);
        stats.addRead(first);
        stats.addWrite(first);
        int other = stats.entry(1L << 40);
        stats.addWrite(other);

        assertThat(stats.entry(7)).isEqualTo(first);
        assertThat(stats.find(1L << 40)).isEqualTo(other);
        assertThat(stats.find(8)).isEqualTo(-1);
        assertThat(stats.block(first)).isEqualTo(7);
        assertThat(stats.reads(first)).isEqualTo(2);
        assertThat(stats.writes(first)).isEqualTo(1);
        assertThat(stats.priority(first, 1000, 1)).isEqualTo(2002);
        assertThat(stats.reads(other)).isZero();
        assertThat(stats.size()).isEqualTo(2);
    }

    @Test
    void keepsEveryBlockApartAsItsTablesGrow() {
        AccessStats stats = new AccessStats();
        // Blocks a stride apart, as a 1 TiB image's would be, collide on naive hashes.
        for (long i = 0; i < 100_000; i++) {
            int entry = stats.entry(i * 65_536);
            for (long write = 0; write < i % 3; write++) {
                stats.addWrite(entry);
            }
        }

        assertThat(stats.size()).isEqualTo(100_000);
        for (long i = 0; i < 100_000; i++) {
            int entry = stats.find(i * 65_536);
            assertThat(stats.block(entry)).isEqualTo(i * 65_536);
            assertThat(stats.writes(entry)).isEqualTo(i % 3);
        }
    }
}
