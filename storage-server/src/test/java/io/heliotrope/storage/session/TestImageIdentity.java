package io.heliotrope.storage.session;

import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.version.Version;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static org.assertj.core.api.Assertions.assertThat;

/** A site's copy is of one controller image: one removed and created again under its name is another. */
class TestImageIdentity {
    private static final long SIZE = 64 * BLOCK_SIZE;

    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ControllerSessions sessions = newSessions();

    TestImageIdentity() {
        controller.createImage("disk", SIZE);
    }

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        store.close();
    }

    @Test
    void anImageCreatedAgainUnderItsNameReadsAsZerosAndTheOldCopyIsGone() {
        BlockDevice device = exports().open("disk").join();
        device.write(0, filled(4, 7), false).join();
        device.close();
        long oldCopy = store.image("disk").id();
        controller.removeImage("disk");
        controller.createImage("disk", SIZE);

        BlockDevice again = exports().open("disk").join();
        ByteBuf read = again.read(0, 4 * BLOCK_SIZE).join();
        try {
            assertThat(ByteBufUtil.getBytes(read)).containsOnly(0);
        } finally {
            read.release();
        }
        again.close();
        ImageInfo copy = store.image("disk");
        assertThat(copy.id()).isNotEqualTo(oldCopy);
        assertThat(copy.identity()).isEqualTo(controller.identity("disk"));
        assertThat(store.listImages()).containsExactly(copy);
        assertThat(store.usage(copy.id()).dataBlocks()).isZero();
    }

    @Test
    void whatTheOldImageLeftUnflushedIsDroppedNotFlushedIntoTheNewOne() {
        long epoch = sessions.open("disk").epoch();
        // The process dies with these blocks unflushed; meanwhile the image is removed and created again.
        store.write(store.image("disk").id(), 1, ByteBuffer.wrap(filledBytes(1, 5)), Version.compose(epoch, 1), RECORD, false);
        controller.removeImage("disk");
        controller.createImage("disk", SIZE);

        ImageSession session = newSessions().open("disk");
        session.close();

        assertThat(controller.view("disk")).isEmpty();
        assertThat(session.info().identity()).isEqualTo(controller.identity("disk"));
        assertThat(store.dirtyBlocks(session.info().id())).isEmpty();
        assertThat(store.usage(session.info().id()).dataBlocks()).isZero();
    }

    @Test
    void aRefreshDropsTheCopiesOfRemovedImagesOnly() {
        controller.createImage("kept", SIZE);
        sessions.open("disk").close();
        sessions.open("kept").close();
        controller.removeImage("disk");

        sessions.refresh();

        assertThat(store.listImages()).extracting(ImageInfo::name).containsExactly("kept");
    }

    @Test
    void anOpenImageIsDroppedOnlyByARefreshAfterItCloses() {
        ImageSession session = sessions.open("disk");
        controller.removeImage("disk");
        sessions.refresh();
        assertThat(store.listImages()).extracting(ImageInfo::name).containsExactly("disk");

        session.close();
        sessions.refresh();
        assertThat(store.listImages()).isEmpty();
    }

    @Test
    void aCopyFromBeforeIdentitiesIsTakenForTheImageOfItsNameUntilThatIsRemoved() {
        ImageInfo legacy = store.createImage("disk", SIZE);

        sessions.refresh();
        assertThat(store.listImages()).containsExactly(legacy);

        controller.removeImage("disk");
        sessions.refresh();
        assertThat(store.listImages()).isEmpty();
    }

    private ControllerSessions newSessions() {
        return new ControllerSessions("a", store, store.view(), controller.forSite("a"), (image, opened) -> {}, scheduler, Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1));
    }

    private ImageExports exports() {
        return new ImageExports(sessions, new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true, Runnable::run,
                UnpooledByteBufAllocator.DEFAULT), Runnable::run);
    }

    private static ByteBuf filled(int blocks, int value) {
        return Unpooled.wrappedBuffer(filledBytes(blocks, value));
    }

    private static byte[] filledBytes(int blocks, int value) {
        byte[] data = new byte[blocks * BLOCK_SIZE];
        Arrays.fill(data, (byte) value);
        return data;
    }
}
