package io.heliotrope.controller.metadata;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class TestBlockEntries {
    @Test
    void builderSortsAndTheLaterEntryForABlockWins() {
        BlockEntries entries = BlockEntries.builder()
                .add(9, 1, "a")
                .add(3, 1, "a")
                .addZero(9, 2)
                .add(3, 5, "b")
                .add(0, 1, "b")
                .build();

        assertThat(entries).isEqualTo(BlockEntries.builder().add(0, 1, "b").add(3, 5, "b").addZero(9, 2).build());
    }

    @Test
    void unsortedInputWithRepeatsMatchesAMap() {
        Random random = new Random(3);
        BlockEntries.Builder builder = BlockEntries.builder();
        Map<Long, Long> expected = new TreeMap<>();
        for (int i = 0; i < 200_000; i++) {
            long block = random.nextInt(50_000);
            long version = random.nextLong();
            builder.add(block, version, "a");
            expected.put(block, version);
        }
        BlockEntries entries = builder.build();

        assertThat(entries.size()).isEqualTo(expected.size());
        int i = 0;
        for (Map.Entry<Long, Long> entry : expected.entrySet()) {
            assertThat(entries.block(i)).isEqualTo(entry.getKey());
            assertThat(entries.version(i)).isEqualTo(entry.getValue());
            i++;
        }
    }

    @Test
    void applyingDeltasLetsTheLatestWinAndMapsSiteTables() {
        BlockEntries base = BlockEntries.builder().add(1, 1, "a").add(2, 1, "a").add(5, 1, "a").build();
        BlockEntries first = BlockEntries.builder().add(2, 2, "b").add(7, 2, "b").build();
        BlockEntries second = BlockEntries.builder().addZero(5, 3).add(7, 3, "c").add(8, 3, "a").build();

        BlockEntries view = BlockEntries.apply(base, List.of(first, second));

        assertThat(view).isEqualTo(BlockEntries.builder()
                .add(1, 1, "a").add(2, 2, "b").addZero(5, 3).add(7, 3, "c").add(8, 3, "a").build());
        assertThat(view.sites()).containsExactly("a", "b", "c");
        assertThat(view.countByHolder()).containsExactly(1, 2, 1, 1);
        assertThat(BlockEntries.apply(base, List.of())).isSameAs(base);
    }

    @Test
    void slicesKeepTheSiteTable() {
        BlockEntries entries = BlockEntries.builder().add(1, 1, "a").add(2, 1, "b").add(3, 1, "a").build();

        BlockEntries slice = entries.slice(1, 3);

        assertThat(slice).isEqualTo(BlockEntries.builder().add(2, 1, "b").add(3, 1, "a").build());
        assertThat(slice.sites()).isEqualTo(entries.sites());
    }
}
