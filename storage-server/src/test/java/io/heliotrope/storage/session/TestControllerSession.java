package io.heliotrope.storage.session;

import io.heliotrope.storage.view.IoGate;
import io.heliotrope.storage.view.SessionWrites;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.memory.MemoryBlockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class TestControllerSession {
    private static final Duration TTL = Duration.ofMinutes(1);

    private final TestingController controller = new TestingController();
    private final Controller site = controller.forSite("a");
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    TestControllerSession() {
        controller.createImage("disk", 64 * BLOCK_SIZE);
    }

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        store.close();
    }

    /** The open (sent a whole TTL ago) waited for another site's lease, or for a slow controller: its client writes at once all the same. */
    @Test
    void aSessionWhoseOpenTookLongerThanARenewalIntervalIsCurrentOnceActive() {
        ControllerSession session = openedAgo(TTL);

        session.activate(Duration.ofHours(1), Long.MAX_VALUE);

        assertThatCode(session::checkCurrent).doesNotThrowAnyException();
    }

    @Test
    void theFirstRenewalIsDueARenewalIntervalAfterTheGrantNotAfterTheOpen() {
        openedAgo(TTL.dividedBy(3).minusSeconds(1));

        assertThat(scheduler.getQueue()).filteredOn(task -> ((RunnableScheduledFuture<?>) task).isPeriodic()).singleElement()
                .satisfies(renewal -> assertThat(((Delayed) renewal).getDelay(TimeUnit.MILLISECONDS)).isLessThanOrEqualTo(1000));
    }

    /**
     * No renewal comes back (the controller waits on a ZooKeeper without a quorum): shortly
     * before the lease may lapse, reads and writes wait at the gate, FLUSHes do not; the first
     * renewal that gets through serves them.
     */
    @Test
    void aSessionWhoseRenewalsGoUnansweredHoldsItsIoUntilOneGoesThrough() throws Exception {
        ScheduledThreadPoolExecutor threads = new ScheduledThreadPoolExecutor(2);
        CountDownLatch renewing = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        try {
            Controller.Opened opened = site.open("disk", 0);
            ImageInfo info = store.createImage("disk", opened.sizeBytes(), opened.identity());
            controller.hold("disk", renewing, answer);
            IoGate gate = IoGate.opened();
            ControllerSession session = new ControllerSession(info, opened.epoch(), opened.epoch(), Duration.ofMillis(600), System.nanoTime(), store,
                    store.view(), SessionWrites.inStore(store, store.view(), info.id(), "a"), site, (image, blocks, reason) -> {}, threads, gate,
                    Duration.ofMinutes(1));
            assertThat(renewing.await(10, TimeUnit.SECONDS)).as("a renewal was sent").isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (gate.isOpen()) {
                assertThat(System.nanoTime() - deadline).as("time left for the gate to pause").isNegative();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }

            CompletableFuture<String> read = gate.run(IoGate.Kind.READ, () -> CompletableFuture.completedFuture("served"));
            assertThat(gate.run(IoGate.Kind.FLUSH, () -> CompletableFuture.completedFuture("flushed"))).isCompletedWithValue("flushed");
            assertThat(read).isNotDone();

            answer.countDown();
            assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo("served");
            assertThatCode(session::checkCurrent).doesNotThrowAnyException();
        } finally {
            answer.countDown();
            threads.shutdownNow();
        }
    }

    /** A session of a lease granted to an open sent {@code ago}. */
    private ControllerSession openedAgo(Duration ago) {
        Controller.Opened opened = site.open("disk", 0);
        ImageInfo info = store.createImage("disk", opened.sizeBytes(), opened.identity());
        return new ControllerSession(info, opened.epoch(), opened.epoch(), TTL, System.nanoTime() - ago.toNanos(), store, store.view(),
                SessionWrites.inStore(store, store.view(), info.id(), "a"), site, (image, blocks, reason) -> {}, scheduler, IoGate.opened(),
                Duration.ofMinutes(1));
    }
}
