package io.heliotrope.storage.status;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.LocalSessions;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.status.StoreCensus.Counts;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.ReadCounter;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static io.heliotrope.storage.BlockStore.Dirty.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

class TestStoreCensus {
    private final MemoryBlockStore memory = new MemoryBlockStore();
    private final HeldExecutor executor = new HeldExecutor();
    private long nanos;
    /** How long each image's count takes, by the test's clock. */
    private Duration countTakes = Duration.ZERO;
    private boolean countFails;
    /** The memory store, counting as slowly as {@code countTakes} says, or failing. */
    private final BlockStore store = (BlockStore) Proxy.newProxyInstance(BlockStore.class.getClassLoader(), new Class<?>[] {BlockStore.class},
            (proxy, method, args) -> {
                if (method.getName().equals("usage")) {
                    nanos += countTakes.toNanos();
                    if (countFails) {
                        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "the index cannot be read");
                    }
                }
                try {
                    return method.invoke(memory, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
    private final ImageExports exports = new ImageExports(new LocalSessions(store), new DefaultDeviceFactory(store, new LocalOnlyFetcher(),
            ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT), Runnable::run);
    private final StoreCensus census = new StoreCensus(store, exports, executor, () -> nanos);

    @AfterEach
    void close() {
        memory.close();
    }

    @Test
    void countsTheDataZeroMarkersAndDirtyBlocksOfEveryImage() {
        long id = memory.createImage("a", 64 * BLOCK_SIZE).id();
        memory.write(id, 0, ByteBuffer.allocate(3 * BLOCK_SIZE), 1, RECORD, false);
        memory.zeroBlocks(id, new long[] {10, 11}, 2, SKIP, false);
        memory.createImage("b", 64 * BLOCK_SIZE);

        CompletableFuture<Map<String, Counts>> first = census.latest();
        assertThat(first).as("the first call waits for the census").isNotDone();
        executor.runAll();

        assertThat(first.join()).containsExactly(entry("a", new Counts(null, 3, 2, 3)), entry("b", new Counts(null, 0, 0, 0)));
    }

    @Test
    void callersGetTheLastCensusAndANewOneStartsOnlyOnceDue() {
        long id = memory.createImage("a", 64 * BLOCK_SIZE).id();
        write(id, 0);
        census.latest();
        executor.runAll();
        write(id, 1);

        assertThat(dataBlocks()).isEqualTo(1);
        assertThat(executor.waiting()).isZero();

        nanos += StoreCensus.MIN_INTERVAL.toNanos();
        assertThat(dataBlocks()).as("the caller does not wait for the census it starts").isEqualTo(1);
        assertThat(dataBlocks()).isEqualTo(1);
        assertThat(executor.waiting()).as("one census at a time").isEqualTo(1);
        executor.runAll();
        assertThat(dataBlocks()).isEqualTo(2);
    }

    @Test
    void aCensusThatTookLongIsTakenAgainOnlyTenTimesAsLongAfterItStarted() {
        memory.createImage("a", 64 * BLOCK_SIZE);
        countTakes = Duration.ofSeconds(2);
        census.latest();
        executor.runAll();

        nanos = Duration.ofSeconds(19).toNanos();
        census.latest();
        assertThat(executor.waiting()).isZero();
        nanos = Duration.ofSeconds(20).toNanos();
        census.latest();
        assertThat(executor.waiting()).isEqualTo(1);
    }

    @Test
    void aCensusThatFailedIsTakenAgainAtTheNextCall() {
        memory.createImage("a", 64 * BLOCK_SIZE);
        countFails = true;
        CompletableFuture<Map<String, Counts>> failed = census.latest();
        executor.runAll();
        assertThatThrownBy(failed::join).hasRootCauseMessage("the index cannot be read");

        countFails = false;
        CompletableFuture<Map<String, Counts>> again = census.latest();
        executor.runAll();
        assertThat(again.join()).containsOnlyKeys("a");
    }

    @Test
    void aCensusTheExecutorRefusesFailsTheCallThatAskedForIt() {
        ExecutorService stopped = Executors.newSingleThreadExecutor();
        stopped.shutdown();

        assertThatThrownBy(() -> new StoreCensus(store, exports, stopped, () -> nanos).latest().join())
                .hasRootCauseMessage("the site's status is shutting down");
    }

    private void write(long id, long block) {
        memory.write(id, block, ByteBuffer.allocate(BLOCK_SIZE), 1, SKIP, false);
    }

    private long dataBlocks() {
        return census.latest().join().get("a").dataBlocks();
    }
}
