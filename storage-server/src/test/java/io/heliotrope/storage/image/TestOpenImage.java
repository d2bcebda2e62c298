package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.session.TestingController;
import io.heliotrope.version.Version;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestOpenImage {
    private final MemoryBlockStore store = new MemoryBlockStore();
    /** Where sessions take their next epoch: run by the test, when it wants the epoch to arrive. */
    private final Queue<Runnable> sessionTasks = new ArrayDeque<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final DeviceFactory devices = new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT);

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        store.close();
    }

    @Test
    void versionsCarryTheSessionEpochAndOnlyGrow() {
        store.createImage("disk", BLOCK_SIZE);
        OpenImage image = open(new LocalSessions(store).open("disk"), 0);
        Version first = Version.of(image.nextVersion());
        Version second = Version.of(image.nextVersion());
        assertThat(second).isGreaterThan(first);
        assertThat(first.epoch()).isGreaterThan(0);
        OpenImage later = open(new LocalSessions(store).open("disk"), 0);
        assertThat(Version.of(later.nextVersion())).isGreaterThan(second);
    }

    @Test
    void asksForTheNextEpochOnceTheCounterNearsItsLimitAndMovesToItWhenItArrives() {
        store.createImage("disk", BLOCK_SIZE);
        ImageSession session = new LocalSessions(store).open("disk");
        long granted = session.epoch();
        OpenImage image = open(session, Version.COUNTER_NEAR_LIMIT - 1);

        assertThat(Version.of(image.nextVersion())).isEqualTo(new Version(granted, Version.COUNTER_NEAR_LIMIT));
        assertThat(sessionTasks).isEmpty();
        assertThat(Version.of(image.nextVersion())).isEqualTo(new Version(granted, Version.COUNTER_NEAR_LIMIT + 1));
        assertThat(Version.of(image.nextVersion())).isEqualTo(new Version(granted, Version.COUNTER_NEAR_LIMIT + 2));
        assertThat(sessionTasks).hasSize(1);

        sessionTasks.remove().run();

        assertThat(session.epoch()).isGreaterThan(granted);
        assertThat(Version.of(image.nextVersion())).isEqualTo(new Version(session.epoch(), 1));
        assertThat(new LocalSessions(store).open("disk").epoch()).isGreaterThan(session.epoch());
    }

    @Test
    void anEpochThatCannotBeTakenIsAskedForAgainAndFailsTheWritesOnceTheCounterRunsOut() {
        store.createImage("disk", BLOCK_SIZE);
        ImageSession session = new LocalSessions(store).open("disk");
        OpenImage image = new OpenImage(session, devices.view(session, Dirty.RECORD), Runnable::run, Version.MAX_COUNTER - 1);
        store.deleteImage("disk");

        assertThat(Version.of(image.nextVersion())).isEqualTo(new Version(session.epoch(), Version.MAX_COUNTER));
        assertThatThrownBy(image::nextVersion).hasMessage("image id 1 does not exist");
    }

    @Test
    void writesGoOnThroughTheCounterLimitUnderTheNextEpochOfTheSameLeaseAndAllFlushAtClose() {
        TestingController controller = new TestingController();
        controller.createImage("disk", 8 * BLOCK_SIZE);
        ImageSession session = new ControllerSessions("a", store, store.view(), controller.forSite("a"), (image, opened) -> {}, scheduler, Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1))
                .open("disk");
        long granted = session.epoch();
        OpenImage image = open(session, Version.MAX_COUNTER - 3);
        BlockDevice device = devices.device(image, session::close);

        for (int block = 0; block < 3; block++) {
            write(device, block);
        }
        assertThatThrownBy(() -> write(device, 3)).cause()
                .hasMessage("image 'disk': every version of epoch " + granted + " is used and the next epoch has not arrived yet; try again");
        sessionTasks.remove().run();
        for (int block = 3; block < 6; block++) {
            write(device, block);
        }
        List<Long> versions = new ArrayList<>();
        store.forEachBlock(image.info().id(), block -> versions.add(block.version()));
        device.close();

        assertThat(session.epoch()).isEqualTo(granted + 1);
        assertThat(versions).isSortedAccordingTo(Version::compare).extracting(Version::of).containsExactly(
                new Version(granted, Version.MAX_COUNTER - 2), new Version(granted, Version.MAX_COUNTER - 1), new Version(granted, Version.MAX_COUNTER),
                new Version(granted + 1, 1), new Version(granted + 1, 2), new Version(granted + 1, 3));
        assertThat(controller.view("disk").values()).extracting(GlobalBlock::version).containsExactlyElementsOf(versions);
        assertThat(controller.view("disk").values()).extracting(GlobalBlock::holder).containsOnly("a");
        assertThat(controller.holder("disk")).isNull();
    }

    /** An open image whose next epoch arrives when the test runs the session task that asks for it. */
    private OpenImage open(ImageSession session, long counter) {
        return new OpenImage(session, devices.view(session, Dirty.RECORD), sessionTasks::add, counter);
    }

    private static void write(BlockDevice device, int block) {
        device.write((long) block * BLOCK_SIZE, Unpooled.wrappedBuffer(new byte[BLOCK_SIZE]), false).join();
    }
}
