package io.heliotrope.storage.propagation;

import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.Replication.Mode;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.propagation.TestingPeers.Push;
import io.heliotrope.storage.propagation.TestingPeers.Pushed;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/** A full queue over a simulated link of 75 ms round trips and 1 Gbit/s: how much of it pushes use. */
class TestPushRate {
    private static final long LINK_BYTES_PER_SECOND = 125_000_000;
    private static final int BLOCKS = 8192;

    private final TestingScheduler scheduler = new TestingScheduler(Instant.parse("2024-03-01T12:00:00Z"));
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final TestingPeers peers = new TestingPeers(scheduler);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ImageInfo image = store.createImage("disk", BLOCKS * (long) BLOCK_SIZE);
    private final PropagationManager manager = new PropagationManager("us-east", store, peers, scheduler, scheduler, scheduler.clock(),
            new SplittableRandom(1), PropagationConfig.DEFAULT, new PropagationMetrics(registry));

    @BeforeEach
    void fillImage() {
        store.write(image.id(), 0, ByteBuffer.allocate(BLOCKS * BLOCK_SIZE), 1, Dirty.SKIP, false);
        peers.link(Duration.ofMillis(75), LINK_BYTES_PER_SECOND);
    }

    @AfterEach
    void close() {
        manager.close();
        store.close();
    }

    @Test
    void pushesUseAtLeast80PercentOfTheLink() {
        keepQueueFull(0);

        scheduler.advance(Duration.ofSeconds(1));
        double before = pushedBytes();
        scheduler.advance(Duration.ofSeconds(3));

        assertThat(pushedBytes() - before).isGreaterThanOrEqualTo(0.8 * 3 * LINK_BYTES_PER_SECOND);
    }

    @Test
    void pushesNeverSendMoreThanTheCapInAnySecondAndUseMostOfIt() {
        long cap = 40_000_000;
        keepQueueFull(cap);

        scheduler.advance(Duration.ofSeconds(5));

        List<Push> pushes = peers.pushes();
        // The fullest window starts at a push.
        for (Push push : pushes) {
            long inWindow = pushes.stream().filter(other -> other.millis() >= push.millis() && other.millis() < push.millis() + 1000)
                    .mapToLong(Push::bytes).sum();
            assertThat(inWindow).isLessThanOrEqualTo(cap);
        }
        assertThat(pushes.stream().mapToLong(Push::bytes).sum()).isGreaterThan((long) (0.9 * 5 * cap));
    }

    /** Writes every block again as soon as its push arrives, so the queue never runs dry. */
    private void keepQueueFull(long cap) {
        Replication replication = new Replication(Mode.PROACTIVE, 1000, 0, "us-east", 1, 0, cap, 0, Map.of("us-east", Map.of("us-west", 1.0)), false);
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication);
        peers.onPush(push -> push.copies().stream().mapToLong(Pushed::block).forEach(block -> propagation.recordWrite(block, 1)));
        propagation.recordWrite(0, BLOCKS);
    }

    private double pushedBytes() {
        return registry.get("heliotrope.propagation.pushed.bytes").counter().count();
    }
}
