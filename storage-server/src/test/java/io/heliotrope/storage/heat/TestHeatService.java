package io.heliotrope.storage.heat;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.Replication.Mode;
import io.heliotrope.storage.heat.HeatLog.Recorded;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.propagation.ImagePropagation;
import io.heliotrope.storage.propagation.PropagationConfig;
import io.heliotrope.storage.propagation.PropagationManager;
import io.heliotrope.storage.propagation.PropagationMetrics;
import io.heliotrope.storage.propagation.PushGuard;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

class TestHeatService {
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ImageInfo disk = store.createImage("disk", 64 * BLOCK_SIZE, UUID.randomUUID());
    private final ScheduledThreadPoolExecutor scheduler = BoundedExecutors.scheduled("test-push", 1, 64);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final StuckPeers peers = new StuckPeers();
    private final PropagationManager propagation = new PropagationManager("a", store, peers, scheduler, scheduler, Clock.systemUTC(),
            new SplittableRandom(1), new PropagationConfig(1, 1, Duration.ofMillis(1), Duration.ofMillis(200), Duration.ofSeconds(30), 1000),
            new PropagationMetrics(registry));
    private final HeatLog log = new HeatLog(Clock.systemUTC());
    private final HeatService service = new HeatService(log, propagation, registry);

    @AfterEach
    void close() throws InterruptedException {
        propagation.close();
        BoundedExecutors.shutdown(scheduler, Duration.ofSeconds(5));
        store.close();
    }

    @Test
    void servesTheHeatOfSessionsOlderThanTheAskingHoldingAndCountsIt() {
        BlockHeat heat = log.open(disk, () -> 4);
        heat.record(3, 2);
        heat.record(4, 1);
        assertThat(registry.get("heliotrope.heat.tracked.blocks").gauge().value()).isEqualTo(2);

        Recorded served = service.heat(ImageRef.of(disk), "b", 5, 10);

        assertThat(served.epoch()).isEqualTo(4);
        // The blocks in the order first touched (they lead a session's heat: TestBlockHeat).
        assertThat(served.blocks()).containsExactly(3, 4);
        assertThat(service.heat(ImageRef.of(disk), "b", 5, 1).blocks()).containsExactly(3);
        assertThat(service.heat(ImageRef.of(disk), "b", 4, 10)).isSameAs(Recorded.NONE);
        assertThat(service.heat(ImageRef.of(disk), "b", 5, 1L << 33).blocks()).hasSize(2);
        assertThat(registry.get("heliotrope.heat.served.blocks").counter().count()).isEqualTo(5);
    }

    @Test
    void askingForHeatStopsTheDrainOfAClosedSessionToTheAskingSite() throws Exception {
        ImagePropagation pushes = propagation.open(disk, PushGuard.NONE,
                new Replication(Mode.PROACTIVE, 1000, 0, "a", 1, 0, 0, 0, Map.of("a", Map.of("b", 1.0)), false));
        for (long block = 0; block < 8; block++) {
            store.write(disk.id(), block, ByteBuffer.allocate(BLOCK_SIZE), block + 1, Dirty.SKIP, false);
        }
        pushes.recordWrite(0, 8);
        peers.first.get();
        pushes.close();

        service.heat(ImageRef.of(disk), "b", 5, 10);
        peers.first.getNow(null).complete(new boolean[] {true});

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!propagation.backlogs().isEmpty() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
        }
        assertThat(propagation.backlogs()).as("the drain ended").isEmpty();
        assertThat(peers.pushes.get()).as("only the push under way when b asked").isEqualTo(1);
    }

    /** Peers whose first push hangs until the test answers it; later pushes are stored at once. */
    private static final class StuckPeers extends AbstractTestingPeers {
        final CompletableFuture<CompletableFuture<boolean[]>> first = new CompletableFuture<>();
        final AtomicInteger pushes = new AtomicInteger();

        @Override
        public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
            if (pushes.getAndIncrement() == 0) {
                CompletableFuture<boolean[]> answer = new CompletableFuture<>();
                first.complete(answer);
                return answer;
            }
            return CompletableFuture.completedFuture(new boolean[copies.size()]);
        }
    }
}
