package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.segment.SegmentLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSegmentCleaning {
    private static final long SEGMENT = 8L * SegmentLog.RECORD;

    @TempDir
    Path directory;

    private static ByteBuffer block(int value) {
        ByteBuffer buffer = ByteBuffer.allocate(BLOCK_SIZE);
        while (buffer.hasRemaining()) {
            buffer.put((byte) value);
        }
        return buffer.flip();
    }

    private static byte readByte(RocksBlockStore store, long imageId, long block) {
        ByteBuffer buffer = ByteBuffer.allocate(BLOCK_SIZE);
        store.read(imageId, block, 1, buffer);
        return buffer.get(BLOCK_SIZE - 1);
    }

    private long segmentFiles() throws IOException {
        try (Stream<Path> files = Files.list(directory.resolve("segments"))) {
            return files.count();
        }
    }

    @Test
    void movesLiveBlocksOutOfOldSegmentsAndFreesThem() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20, SEGMENT, true)) {
            ImageInfo image = store.createImage("disk", 16 * BLOCK_SIZE);
            for (int round = 1; round <= 4; round++) {
                for (int block = 0; block < 16; block++) {
                    // the last round leaves odd blocks at round 3
                    if (round < 4 || block % 2 == 0) {
                        store.write(image.id(), block, block(round * 16 + block), round, false);
                    }
                }
            }
            store.zero(image.id(), 15, 1, 5, false);
            long before = segmentFiles();
            // every segment but the active one is sealed; moving live blocks seals new ones, so clean only those
            for (long sealed = before - 1; sealed > 0; sealed--) {
                assertThat(store.cleanOldestSegment()).isTrue();
            }
            assertThat(segmentFiles()).isLessThan(before);
            for (int block = 0; block < 15; block++) {
                assertThat(readByte(store, image.id(), block)).as("block %s", block).isEqualTo((byte) ((block % 2 == 0 ? 4 : 3) * 16 + block));
            }
            assertThat(readByte(store, image.id(), 15)).isZero();
        }
        try (RocksBlockStore reopened = new RocksBlockStore(directory, 8 << 20, SEGMENT, true)) {
            long id = reopened.image("disk").id();
            assertThat(readByte(reopened, id, 2)).isEqualTo((byte) (4 * 16 + 2));
            assertThat(readByte(reopened, id, 3)).isEqualTo((byte) (3 * 16 + 3));
        }
    }

    @Test
    void reportsDataThatFailsItsChecksum() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20, SEGMENT, true)) {
            ImageInfo image = store.createImage("disk", BLOCK_SIZE);
            store.write(image.id(), 0, block(7), 1, true);
            try (Stream<Path> files = Files.list(directory.resolve("segments"));
                    RandomAccessFile file = new RandomAccessFile(files.findFirst().orElseThrow().toFile(), "rw")) {
                file.seek(SegmentLog.HEADER + 100);
                file.write(8);
            }
            assertThatThrownBy(() -> readByte(store, image.id(), 0))
                    .hasMessage("block data at segment 1 offset 32 fails its checksum");
        }
    }

    @Test
    void cleansOnItsOwnUntilTheLogHoldsAboutTwiceTheLiveData() {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20, SEGMENT, true)) {
            ImageInfo image = store.createImage("hot", 16 * BLOCK_SIZE);
            // 16 live blocks written 64 times: RocksDB's key estimate still counts most overwrites.
            for (int round = 1; round <= 64; round++) {
                for (int block = 0; block < 16; block++) {
                    store.write(image.id(), block, block(round), round, false);
                }
            }
            long bound = 2 * 16 * SegmentLog.RECORD + 3 * SEGMENT;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (store.segmentLogBytes() > bound) {
                assertThat(System.nanoTime() - deadline).as("log still %d bytes, expected at most %d", store.segmentLogBytes(), bound).isNegative();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            assertThat(readByte(store, image.id(), 7)).isEqualTo((byte) 64);
        }
    }
}
