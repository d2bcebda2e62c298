package io.heliotrope.storage.handoff;

import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.session.Controller;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.session.TestingController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

/** The destination in standby awaits the lease at the controller, asked again while the standby lasts, and activates on its word. */
class TestHandoffAwaits {
    private static final Duration WAIT = Duration.ofMillis(20);

    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService calls = Executors.newSingleThreadExecutor();
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ControllerSessions b = new ControllerSessions("b", store, store.view(), controller.forSite("b"), (image, opened) -> {}, scheduler,
            Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1));
    private final CompletableFuture<Controller.Synced> activated = new CompletableFuture<>();
    private final HandoffAwaits awaits = new HandoffAwaits("b", b, calls, scheduler, (image, synced) -> activated.complete(synced), WAIT);
    private final Controller a = controller.forSite("a");

    TestHandoffAwaits() {
        controller.createImage("disk", 64 * BLOCK_SIZE);
    }

    @AfterEach
    void close() {
        calls.shutdownNow();
        scheduler.shutdownNow();
        store.close();
    }

    @Test
    void aStandbyIsActivatedOnTheControllersWordAfterAwaitsInVain() throws Exception {
        long epoch = a.open("disk", 0).epoch();
        b.standby("disk", "a");

        awaits.start("disk");
        until(() -> controller.awaits() >= 3);
        assertThat(activated).isNotDone();
        a.handOver("disk", epoch, List.of(), "a", "b", Duration.ofSeconds(5));

        assertThat(activated.get(10, TimeUnit.SECONDS).lease()).isEqualTo(new Controller.LeaseState("b", epoch + 1, epoch + 1));
        assertThat(awaits.awaiting("disk")).isFalse();
    }

    @Test
    void aStoppedAwaitActivatesNothing() throws Exception {
        long epoch = a.open("disk", 0).epoch();
        b.standby("disk", "a");
        awaits.start("disk");

        awaits.stop("disk");
        a.handOver("disk", epoch, List.of(), "a", "b", Duration.ofSeconds(5));

        calls.submit(() -> {}).get(10, TimeUnit.SECONDS);
        assertThat(activated).isNotDone();
        assertThat(awaits.awaiting("disk")).isFalse();
    }

    @Test
    void theAwaitEndsWithTheStandby() {
        a.open("disk", 0);
        b.standby("disk", "a");
        awaits.start("disk");

        b.end("disk", "its handoff was rolled back");

        until(() -> !awaits.awaiting("disk"));
        assertThat(activated).isNotDone();
    }

    /** Waits for a condition that the awaits' threads make true, for at most 10 s. */
    private static void until(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition met within 10 s").isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
