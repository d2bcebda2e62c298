package io.heliotrope.storage.image;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.Extent;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.rocksdb.RocksBlockStore;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestImageDevice {
    @TempDir
    Path directory;

    private BlockStore store;
    private ExecutorService executor;
    private ImageExports exports;
    private BlockDevice device;

    @BeforeEach
    void open() {
        store = new RocksBlockStore(directory, 8 << 20);
        executor = Executors.newFixedThreadPool(4);
        exports = exports(executor, false);
        store.createImage("disk", 64 * BLOCK_SIZE);
        device = exports.open("disk").join();
    }

    @AfterEach
    void close() throws InterruptedException {
        device.close();
        // Sessions end on the executor after the last device closes: let them finish before the store goes.
        executor.shutdown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        store.close();
    }

    private ImageExports exports(Executor storeCalls, boolean inlineCalls) {
        DeviceFactory devices = new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, storeCalls, inlineCalls, storeCalls, PooledByteBufAllocator.DEFAULT);
        return new ImageExports(new LocalSessions(store), devices, executor);
    }

    private byte[] read(long offset, int length) {
        ByteBuf buf = device.read(offset, length).join();
        try {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    private void write(long offset, byte[] bytes) {
        device.write(offset, Unpooled.wrappedBuffer(bytes), false).join();
    }

    private static byte[] filled(int length, int value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) value);
        return bytes;
    }

    @Test
    void withCallsInlineEvenLargeReadsAndWritesCompleteOnTheCaller() {
        Queue<Runnable> pool = new ArrayDeque<>();
        ImageExports inline = exports(pool::add, true);
        int large = 1 << 20;
        store.createImage("inline", large);
        BlockDevice device = inline.open("inline").join();
        try {
            assertThat(device.write(0, Unpooled.wrappedBuffer(filled(large, 2)), false)).isDone();
            CompletableFuture<ByteBuf> read = device.read(0, large);
            assertThat(read).isDone();
            ByteBuf bytes = read.join();
            assertThat(bytes.getByte(large - 1)).isEqualTo((byte) 2);
            bytes.release();
            assertThat(pool).as("store calls handed off").isEmpty();
        } finally {
            device.close();
        }
    }

    @Test
    void wholeBlockWritesInABatchCompleteWhenItEndsAndOthersAtOnce() {
        ImageExports inline = exports(Runnable::run, true);
        store.createImage("batched", 8 * BLOCK_SIZE);
        BlockDevice device = inline.open("batched").join();
        try {
            device.startBatch();
            CompletableFuture<Void> whole = device.write(0, Unpooled.wrappedBuffer(filled(2 * BLOCK_SIZE, 4)), false);
            assertThat(whole).as("queued in the store until the batch ends").isNotDone();
            device.endBatch();
            assertThat(whole).isDone();
            device.startBatch();
            CompletableFuture<Void> partial = device.write(3 * BLOCK_SIZE + 100, Unpooled.wrappedBuffer(filled(100, 5)), false);
            assertThat(partial).as("a partial block is read, merged and written at once").isDone();
            device.endBatch();
            assertThat(device.write(4 * BLOCK_SIZE, Unpooled.wrappedBuffer(filled(BLOCK_SIZE, 6)), false)).as("after the batch").isDone();
            ByteBuf bytes = device.read(0, 5 * BLOCK_SIZE).join();
            assertThat(bytes.getByte(2 * BLOCK_SIZE - 1)).isEqualTo((byte) 4);
            assertThat(bytes.getByte(3 * BLOCK_SIZE + 100)).isEqualTo((byte) 5);
            assertThat(bytes.getByte(5 * BLOCK_SIZE - 1)).isEqualTo((byte) 6);
            bytes.release();
        } finally {
            device.close();
        }
    }

    @Test
    void mergesUnalignedWritesIntoWholeBlocks() {
        write(0, filled(3 * BLOCK_SIZE, 1));
        write(4097, filled(1000, 2));
        write(2 * BLOCK_SIZE - 10, filled(20, 3));
        byte[] all = read(0, 3 * BLOCK_SIZE);
        assertThat(Arrays.copyOfRange(all, 0, 4097)).containsOnly(1);
        assertThat(Arrays.copyOfRange(all, 4097, 5097)).containsOnly(2);
        assertThat(Arrays.copyOfRange(all, 5097, 2 * BLOCK_SIZE - 10)).containsOnly(1);
        assertThat(Arrays.copyOfRange(all, 2 * BLOCK_SIZE - 10, 2 * BLOCK_SIZE + 10)).containsOnly(3);
        assertThat(read(4095, 3)).containsExactly(1, 1, 2);
        assertThat(read(5095, 3)).containsExactly(2, 2, 1);
    }

    @Test
    void keepsEveryConcurrentPartialWriteToOneBlock() {
        for (int round = 0; round < 50; round++) {
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int sector = 0; sector < 8; sector++) {
                writes.add(device.write(BLOCK_SIZE + sector * 512L, Unpooled.wrappedBuffer(filled(512, round * 8 + sector + 1)), false));
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            byte[] block = read(BLOCK_SIZE, BLOCK_SIZE);
            for (int sector = 0; sector < 8; sector++) {
                assertThat(Arrays.copyOfRange(block, sector * 512, (sector + 1) * 512)).as("round %s sector %s", round, sector)
                        .containsOnly((byte) (round * 8 + sector + 1));
            }
        }
    }

    @Test
    void writeZeroesClearsPartialEdgesAndTrimOnlyWholeBlocks() {
        write(0, filled(4 * BLOCK_SIZE, 9));
        device.writeZeroes(100, 2 * BLOCK_SIZE, false, true).join();
        assertThat(read(0, 100)).containsOnly(9);
        assertThat(read(100, 2 * BLOCK_SIZE)).containsOnly(0);
        assertThat(read(100 + 2 * BLOCK_SIZE, 10)).containsOnly(9);

        device.trim(3 * BLOCK_SIZE - 1, BLOCK_SIZE + 1, false).join();
        assertThat(read(3 * BLOCK_SIZE - 1, 1)).containsOnly(9);
        assertThat(read(3 * BLOCK_SIZE, BLOCK_SIZE)).containsOnly(0);
        assertThat(store.usage(store.image("disk").id())).isEqualTo(new BlockStore.ImageUsage(2, 2));
    }

    @Test
    void reportsDataAndHolesAtAnyOffset() {
        write(2 * BLOCK_SIZE, filled(BLOCK_SIZE, 5));
        List<Extent> extents = device.blockStatus(10, 4 * BLOCK_SIZE).join();
        assertThat(extents).containsExactly(
                Extent.zeroHole(2 * BLOCK_SIZE - 10), Extent.data(BLOCK_SIZE), Extent.zeroHole(BLOCK_SIZE + 10));
    }

    @Test
    void refusesToRemoveAnOpenImageUntilItsLastConnectionCloses() {
        BlockDevice second = exports.open("disk").join();
        device.close();
        assertThatThrownBy(() -> exports.whileClosed("disk", () -> null))
                .hasMessage("image 'disk' is in use by 1 connection(s); disconnect them first");
        second.close();
        assertThat(exports.whileClosed("disk", () -> "removed")).isEqualTo("removed");
    }
}
