package io.heliotrope.storage.status;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ImageSessions;
import io.heliotrope.storage.image.LocalSessions;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.PeerMetrics.BlockBytes;
import io.heliotrope.storage.peer.PeerMetrics.Traffic;
import io.heliotrope.storage.propagation.PropagationManager.Backlog;
import io.heliotrope.storage.pull.PullStatus;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.session.TestingController;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.TestingBuffers.filled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

class TestSiteStatusService {
    private static final long SIZE = 64 * BLOCK_SIZE;
    private static final Instant STARTED = Instant.parse("2026-11-25T08:00:00Z");
    private static final BlockBytes NONE = new BlockBytes(0, 0);

    private final MemoryBlockStore store = new MemoryBlockStore();
    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService censusThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        censusThread.shutdownNow();
        store.close();
    }

    @Test
    void aStandaloneSiteShowsEachImagesBlocksAndConnections() {
        ImageExports exports = exports(new LocalSessions(store));
        store.createImage("idle", SIZE);
        store.createImage("used", SIZE);
        BlockDevice first = exports.open("used").join();
        BlockDevice second = exports.open("used").join();
        first.write(0, filled(5, 1), false).join();
        // Zeroes over blocks written: zero markers.
        first.writeZeroes(3 * BLOCK_SIZE, 2 * BLOCK_SIZE, false, false).join();

        SiteState state = service("local", exports, Map::of, () -> Traffic.NONE, Map::of).status().join();

        assertThat(state.site()).isEqualTo("local");
        assertThat(state.started()).isEqualTo(STARTED);
        assertThat(state.images()).containsExactly(
                new SiteState.Image("idle", null, 0, 0, 0, 0, Backlog.NONE, NONE, null, null),
                new SiteState.Image("used", null, 3, 2, 2, 0, Backlog.NONE, NONE, null, null));
        assertThat(state.peers()).isEmpty();
        first.close();
        second.close();
    }

    @Test
    void aSiteWithAControllerShowsTheBlocksNotFlushedYetUntilTheCloseFlushesThem() {
        controller.createImage("disk", SIZE);
        controller.createImage("elsewhere", SIZE);
        ImageExports exports = exports(new ControllerSessions("virginia", store, store.view(), controller.forSite("virginia"), (image, opened) -> {},
                scheduler, Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1)));
        BlockDevice device = exports.open("disk").join();
        device.write(0, filled(5, 7), false).join();
        Map<String, Backlog> backlogs = Map.of("disk", new Backlog(5, Duration.ofMillis(1500)));
        Traffic traffic = new Traffic(Map.of("taiwan", new BlockBytes(20 * BLOCK_SIZE, BLOCK_SIZE)), Map.of("disk", new BlockBytes(20 * BLOCK_SIZE, 0)));
        PullStatus pull = new PullStatus("disk", PullStatus.State.DONE, 0, 0, 0, 0);
        SiteStatusService service = service("virginia", exports, () -> backlogs, () -> traffic, () -> Map.of("disk", pull));

        SiteState state = service.status().join();
        assertThat(state.images()).containsExactly(new SiteState.Image("disk", controller.identity("disk"), 5, 0, 1, 5, backlogs.get("disk"),
                traffic.byImage().get("disk"), pull, null));
        assertThat(state.peers()).containsExactly(entry("taiwan", new BlockBytes(20 * BLOCK_SIZE, BLOCK_SIZE)));

        device.close();
        assertThat(controller.holder("disk")).isNull();
        // The next census, due a second after the last, finds the blocks flushed.
        await(() -> service.status().join().images().get(0).dirtyBlocks() == 0);
        assertThat(service.status().join().images()).extracting(SiteState.Image::connections).containsExactly(0);
    }

    private SiteStatusService service(String site, ImageExports exports, Supplier<Map<String, Backlog>> backlogs, Supplier<Traffic> traffic,
            Supplier<Map<String, PullStatus>> pulls) {
        return new SiteStatusService(site, STARTED, store, exports, backlogs, traffic, pulls, Map::of, censusThread);
    }

    private ImageExports exports(ImageSessions sessions) {
        return new ImageExports(sessions, new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run,
                true, Runnable::run, UnpooledByteBufAllocator.DEFAULT), Runnable::run);
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waited 10 s for the census").isNegative();
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
    }
}
