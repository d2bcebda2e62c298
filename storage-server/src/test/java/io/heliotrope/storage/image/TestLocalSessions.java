package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.version.Version;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestLocalSessions {
    private final MemoryBlockStore memory = new MemoryBlockStore();
    /** What the store answers a session's epoch with, if anything but the epoch. */
    private HeliotropeException refusal = new HeliotropeException(ErrorCode.NO_SPACE, "disk full");
    private int epochsAsked;
    private long now;
    /** The memory store, but refusing sessions' epochs with {@code refusal}. */
    private final BlockStore store = (BlockStore) Proxy.newProxyInstance(BlockStore.class.getClassLoader(), new Class<?>[] {BlockStore.class},
            (proxy, method, args) -> {
                if (method.getName().equals("beginSession")) {
                    epochsAsked++;
                    if (refusal != null) {
                        throw refusal;
                    }
                }
                try {
                    return method.invoke(memory, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });

    @AfterEach
    void close() {
        memory.close();
    }

    @Test
    void anImageOpensOnAFullStoreServesReadsAndWritesOnceItsEpochIsRecorded() {
        ImageInfo info = memory.createImage("disk", 2 * BLOCK_SIZE);
        long earlier = memory.beginSession(info.id());
        memory.write(info.id(), 0, filled(7), Version.compose(earlier, 1), Dirty.SKIP, false);

        ImageSession session = new LocalSessions(store, () -> now).open("disk");
        DeviceFactory devices = new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT);
        BlockDevice device = devices.device(new OpenImage(session, devices.view(session, Dirty.SKIP), Runnable::run), session::close);

        assertThat(session.epoch()).isEqualTo(ImageSession.NO_EPOCH);
        assertThat(read(device, 0)).containsOnly(7);
        assertThatThrownBy(() -> write(device, 1)).cause().hasMessage("disk full");
        assertThat(epochsAsked).as("asked at the open only: the write came too soon after").isEqualTo(1);

        now += LocalSessions.EPOCH_RETRY.toNanos();
        assertThatThrownBy(() -> write(device, 1)).cause().hasMessage("disk full");
        refusal = null;
        assertThatThrownBy(() -> write(device, 1)).cause().hasMessage("disk full");
        assertThat(epochsAsked).isEqualTo(2);

        now += LocalSessions.EPOCH_RETRY.toNanos();
        write(device, 1);
        device.close();

        assertThat(session.epoch()).isGreaterThan(earlier);
        List<Long> versions = new ArrayList<>();
        memory.forEachBlock(info.id(), block -> versions.add(block.version()));
        assertThat(versions).containsExactly(Version.compose(earlier, 1), Version.compose(session.epoch(), 1));
    }

    @Test
    void listsTheStoresImagesWithTheirSizes() {
        memory.createImage("b-disk", 1 << 20);
        memory.createImage("a-disk", 6 * BLOCK_SIZE);
        LocalSessions sessions = new LocalSessions(store);

        assertThat(sessions.list().join()).containsExactly(new ListedExport("a-disk", "24 KiB"), new ListedExport("b-disk", "1 MiB"));
        assertThat(sessions.mayExist("a-disk")).isTrue();
        assertThat(sessions.mayExist("c-disk")).isFalse();
    }

    @Test
    void otherFailuresToRecordTheEpochFailTheOpen() {
        memory.createImage("disk", BLOCK_SIZE);
        refusal = new HeliotropeException(ErrorCode.STORAGE_FAILURE, "disk broken");

        assertThatThrownBy(() -> new LocalSessions(store).open("disk")).hasMessage("disk broken");
    }

    private static ByteBuffer filled(int value) {
        byte[] block = new byte[BLOCK_SIZE];
        Arrays.fill(block, (byte) value);
        return ByteBuffer.wrap(block);
    }

    private static byte[] read(BlockDevice device, int block) {
        ByteBuf data = device.read((long) block * BLOCK_SIZE, BLOCK_SIZE).join();
        try {
            return ByteBufUtil.getBytes(data);
        } finally {
            data.release();
        }
    }

    private static void write(BlockDevice device, int block) {
        device.write((long) block * BLOCK_SIZE, Unpooled.wrappedBuffer(filled(9)), false).join();
    }
}
