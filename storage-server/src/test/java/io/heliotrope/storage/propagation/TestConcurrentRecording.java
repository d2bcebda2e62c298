package io.heliotrope.storage.propagation;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.Replication.Mode;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.propagation.TestingPeers.Pushed;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/** Writers on several threads while the pusher runs on its own: the last version of every block gets out. */
class TestConcurrentRecording {
    private static final int BLOCKS = 1024;
    private static final int WRITERS = 4;

    private final ScheduledExecutorService scheduler = BoundedExecutors.scheduled("site-push", 1, 64);
    private final ExecutorService reads = BoundedExecutors.fixed("push-read", 2, 64);
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final TestingPeers peers = new TestingPeers(new TestingScheduler(Instant.parse("2024-03-01T12:00:00Z")));
    private final ImageInfo image = store.createImage("disk", BLOCKS * (long) BLOCK_SIZE);
    private final PropagationManager manager = new PropagationManager("us-east", store, peers, scheduler, reads, Clock.systemUTC(),
            new SplittableRandom(1), PropagationConfig.DEFAULT, new PropagationMetrics(new SimpleMeterRegistry()));
    private final Map<Long, Long> pushed = new ConcurrentHashMap<>();

    @AfterEach
    void close() throws InterruptedException {
        manager.close();
        BoundedExecutors.shutdown(scheduler, Duration.ofSeconds(5));
        BoundedExecutors.shutdown(reads, Duration.ofSeconds(5));
        store.close();
    }

    @Test
    void everyBlocksLastVersionIsPushed() throws InterruptedException {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, new Replication(Mode.PROACTIVE, 1000, 0, "us-east", 1, 0, 0, 0,
                Map.of("us-east", Map.of("us-west", 1.0)), false));
        peers.onPush(push -> {
            for (Pushed copy : push.copies()) {
                pushed.merge(copy.block(), copy.version(), Math::max);
            }
            synchronized (pushed) {
                pushed.notifyAll();
            }
        });
        AtomicLong versions = new AtomicLong();
        List<Thread> writers = new ArrayList<>();
        for (int writer = 0; writer < WRITERS; writer++) {
            int first = writer * BLOCKS / WRITERS;
            Thread thread = new Thread(() -> {
                for (int round = 0; round < 20; round++) {
                    for (int block = first; block < first + BLOCKS / WRITERS; block += 8) {
                        store.write(image.id(), block, ByteBuffer.allocate(8 * BLOCK_SIZE), versions.incrementAndGet(), Dirty.SKIP, false);
                        propagation.recordRead(block, 8);
                        propagation.recordWrite(block, 8);
                    }
                }
            }, "writer-" + writer);
            thread.start();
            writers.add(thread);
        }
        for (Thread writer : writers) {
            writer.join();
        }

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        synchronized (pushed) {
            while (!allPushed() && System.nanoTime() < deadline) {
                pushed.wait(100);
            }
        }
        assertThat(allPushed()).isTrue();
    }

    private boolean allPushed() {
        List<Long> stored = new ArrayList<>();
        store.forEachBlock(image.id(), block -> stored.add(block.version()));
        for (int block = 0; block < BLOCKS; block++) {
            if (!stored.get(block).equals(pushed.get((long) block))) {
                return false;
            }
        }
        return true;
    }
}
