package io.heliotrope.storage.session;

import io.heliotrope.storage.view.SessionWrites;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.memory.MemoryBlockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

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

        assertThat(scheduler.getQueue()).singleElement()
                .satisfies(renewal -> assertThat(((Delayed) renewal).getDelay(TimeUnit.MILLISECONDS)).isLessThanOrEqualTo(1000));
    }

    /** A session of a lease granted to an open sent {@code ago}. */
    private ControllerSession openedAgo(Duration ago) {
        Controller.Opened opened = site.open("disk", 0);
        ImageInfo info = store.createImage("disk", opened.sizeBytes(), opened.identity());
        return new ControllerSession(info, opened.epoch(), opened.epoch(), TTL, System.nanoTime() - ago.toNanos(), store, store.view(),
                SessionWrites.inStore(store, store.view(), info.id(), "a"), site, (image, blocks, reason) -> {}, scheduler);
    }
}
