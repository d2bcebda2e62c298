package io.heliotrope.benchmarks;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.rocksdb.RocksBlockStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/**
 * 4 KiB random reads and writes straight on a block store, without NBD: the cost the
 * store adds to every request. The image is filled first; RocksDB lives under
 * {@code -Dbench.dir} (default /dev/shm, as the NBD comparison uses).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class BenchmarkBlockStore {
    @Param({"rocksdb", "memory"})
    public String store;

    @Param({"262144"})
    public int blocks;

    private BlockStore blockStore;
    private Path directory;
    private long imageId;
    private long version;

    @State(Scope.Thread)
    public static class Buffers {
        final ByteBuffer read = ByteBuffer.allocateDirect(BLOCK_SIZE);
        final ByteBuffer write = ByteBuffer.allocateDirect(BLOCK_SIZE);
    }

    @Setup(Level.Trial)
    public void fill() throws IOException {
        if (store.equals("rocksdb")) {
            directory = Files.createTempDirectory(Path.of(System.getProperty("bench.dir", "/dev/shm")), "bench-store");
            blockStore = new RocksBlockStore(directory, 256L << 20);
        } else {
            blockStore = new MemoryBlockStore();
        }
        ImageInfo image = blockStore.createImage("bench", (long) blocks * BLOCK_SIZE);
        imageId = image.id();
        ByteBuffer chunk = ByteBuffer.allocateDirect(256 * BLOCK_SIZE);
        for (int first = 0; first < blocks; first += 256) {
            chunk.clear();
            while (chunk.hasRemaining()) {
                chunk.putLong(ThreadLocalRandom.current().nextLong());
            }
            blockStore.write(imageId, first, chunk.flip(), ++version, Dirty.RECORD, false);
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        blockStore.close();
        if (directory != null) {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    @Benchmark
    public ByteBuffer randomRead(Buffers buffers) {
        blockStore.read(imageId, ThreadLocalRandom.current().nextInt(blocks), 1, buffers.read.clear());
        return buffers.read;
    }

    @Benchmark
    public void randomWrite(Buffers buffers) {
        blockStore.write(imageId, ThreadLocalRandom.current().nextInt(blocks), buffers.write.clear(), System.nanoTime(), Dirty.RECORD, false);
    }
}
