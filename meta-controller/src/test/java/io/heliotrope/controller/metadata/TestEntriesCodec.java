package io.heliotrope.controller.metadata;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestEntriesCodec {
    @Test
    void roundTripsEdgeCases() {
        assertRoundTrip(BlockEntries.EMPTY);
        assertRoundTrip(BlockEntries.builder().addZero(0, 1).build());
        assertRoundTrip(BlockEntries.builder()
                .add(0, Version.compose(Version.MAX_EPOCH, Version.MAX_COUNTER), "a")
                .add(1, Version.compose(1, 0), "b")
                .addZero(Long.MAX_VALUE - 1, Version.compose(0, Version.MAX_COUNTER))
                .add(Long.MAX_VALUE, Version.compose(1L << 31, 0), "a")
                .build());
        BlockEntries.Builder unusedSites = BlockEntries.builder();
        unusedSites.site("never-used");
        assertRoundTrip(unusedSites.add(7, 3, "ünïcode").build());
    }

    @Test
    void roundTripsRandomEntries() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            BlockEntries.Builder builder = BlockEntries.builder();
            int sites = random.nextInt(5);
            int count = random.nextInt(3000);
            for (int i = 0; i < count; i++) {
                long block = random.nextInt(4) == 0 ? random.nextLong() >>> 1 : random.nextInt(10_000);
                int holder = sites == 0 ? 0 : random.nextInt(sites + 1);
                builder.add(block, random.nextLong(), holder == 0 ? 0 : builder.site("site-" + holder));
            }
            assertRoundTrip(builder.build());
        }
    }

    @Test
    void aMillionDirtyBlocksOfOneEpochTakeFewBytesEach() {
        Random random = new Random(7);
        long epoch = 12;
        BlockEntries.Builder builder = BlockEntries.builder();
        int site = builder.site("us-east");
        long block = 0;
        for (int i = 0; i < 1_000_000; i++) {
            block += 1 + (random.nextInt(8) == 0 ? random.nextInt(64) : 0);
            long version = Version.compose(epoch, 1 + random.nextInt(3));
            builder.add(block, version, random.nextInt(100) == 0 ? 0 : site);
        }
        BlockEntries entries = builder.build();

        for (EntriesCodec.Effort effort : EntriesCodec.Effort.values()) {
            long start = System.nanoTime();
            byte[] encoded = EntriesCodec.encode(entries, effort);
            long encodedAt = System.nanoTime();
            BlockEntries decoded = EntriesCodec.decode(encoded);
            long decodedAt = System.nanoTime();

            double bytesPerBlock = (double) encoded.length / entries.size();
            System.out.printf("codec (%s): %d blocks of one epoch in %d bytes, %.3f bytes/block; encode %d ms, decode %d ms%n",
                    effort, entries.size(), encoded.length, bytesPerBlock, (encodedAt - start) / 1_000_000, (decodedAt - encodedAt) / 1_000_000);
            assertThat(decoded).isEqualTo(entries);
            assertThat(bytesPerBlock).isLessThanOrEqualTo(6);
        }
    }

    @Test
    void rejectsDamagedData() {
        BlockEntries entries = BlockEntries.builder().add(1, 5, "a").add(9, 6, "a").build();
        byte[] encoded = EntriesCodec.encode(entries, EntriesCodec.Effort.FAST);

        assertThatThrownBy(() -> EntriesCodec.decode(Arrays.copyOf(encoded, encoded.length - 1)))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STORAGE_FAILURE))
                .hasMessageStartingWith("corrupt block metadata: ");
        byte[] flipped = encoded.clone();
        flipped[flipped.length - 1] ^= 1;
        assertThatThrownBy(() -> EntriesCodec.decode(flipped)).hasMessageStartingWith("corrupt block metadata: ");
        assertThatThrownBy(() -> EntriesCodec.decode(new byte[0])).hasMessageStartingWith("corrupt block metadata: ");
    }

    private static void assertRoundTrip(BlockEntries entries) {
        for (EntriesCodec.Effort effort : EntriesCodec.Effort.values()) {
            BlockEntries decoded = EntriesCodec.decode(EntriesCodec.encode(entries, effort));
            assertThat(decoded).isEqualTo(entries);
            assertThat(decoded.sites()).isEqualTo(entries.sites());
            assertThat(decoded.countByHolder()).containsExactly(entries.countByHolder());
        }
    }
}
