package io.heliotrope.storage.image.mode;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.Extent;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.image.DefaultDeviceFactory;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.Locality;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import io.heliotrope.storage.peer.PeerService;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.peer.PushPolicy;
import io.heliotrope.storage.peer.TestingAdmissions;
import io.heliotrope.storage.session.Controller;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.WanWaits;
import io.heliotrope.storage.session.TestingController;
import io.heliotrope.version.Version;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.TestingBuffers.bytes;
import static io.heliotrope.storage.TestingBuffers.filled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** A remote image written and read at site b, away from its home a: data only at a, metadata naming a, nothing stored at b. */
class TestRemoteDevice {
    private static final String IMAGE = "disk";

    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService peerCalls = BoundedExecutors.fixed("test-peer", 2, 64);
    private final MemoryBlockStore home = new MemoryBlockStore();
    private final MemoryBlockStore third = new MemoryBlockStore();
    private final MemoryBlockStore here = new MemoryBlockStore();
    /** Blocks read as zeros here and fetched from elsewhere, as the site's read counter sees them. */
    private final AtomicLongArray counted = new AtomicLongArray(2);
    private final ReadCounter reads = (zeros, fetched) -> {
        counted.addAndGet(0, zeros);
        counted.addAndGet(1, fetched);
    };
    private final SitePeers peers = new SitePeers(Map.of(
            "a", new PeerService(home, home.view(), PushPolicy.NEWER, TestingAdmissions.TRUSTING, peerCalls, peerCalls),
            "c", new PeerService(third, third.view(), PushPolicy.NEWER, TestingAdmissions.TRUSTING, peerCalls, peerCalls)));

    TestRemoteDevice() {
        controller.createImage(IMAGE, 64 * BLOCK_SIZE);
        controller.replicate(IMAGE, Replication.defaults("a").withMode(Replication.Mode.REMOTE));
    }

    @AfterEach
    void close() throws InterruptedException {
        scheduler.shutdownNow();
        BoundedExecutors.shutdown(peerCalls, Duration.ofSeconds(5));
        home.close();
        third.close();
        here.close();
    }

    private BlockDevice open() {
        ControllerSessions sessions = new ControllerSessions("b", here, here.view(), controller.forSite("b"), (image, opened) -> {}, scheduler,
                Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1));
        DefaultDeviceFactory store = new DefaultDeviceFactory(here, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true,
                Runnable::run, UnpooledByteBufAllocator.DEFAULT);
        BlockDevice device = new ImageExports(sessions, new ModeDevices(store, peers, here.view(), reads, WanWaits.NONE, Runnable::run, UnpooledByteBufAllocator.DEFAULT), Runnable::run)
                .open(IMAGE).join();
        assertThat(device).isInstanceOf(RemoteDevice.class);
        return device;
    }

    @Test
    void aWriteGoesToTheHomeOnlyAndTheFlushNamesTheHomeAsHolder() {
        BlockDevice device = open();

        device.write(2 * BLOCK_SIZE, filled(2, 7), true).join();

        assertThat(peers.pushes).extracting(Push::site, Push::blocks).containsExactly(tuple("a", List.of(2L, 3L)));
        assertThat(blocksAt(home)).extracting(BlockVersion::block).containsExactly(2L, 3L);
        assertThat(blocksAt(here)).as("nothing of the image is stored at b").isEmpty();
        assertThat(here.dirtyBlocks(here.image(IMAGE).id())).isEmpty();
        assertThat(bytes(device.read(2 * BLOCK_SIZE, 2 * BLOCK_SIZE).join())).containsOnly(7);
        assertThat(peers.fetches).extracting(Fetch::site, Fetch::blocks).containsExactly(tuple("a", List.of(2L, 3L)));
        device.flush().join();
        device.close();

        Map<Long, GlobalBlock> committed = controller.view(IMAGE);
        assertThat(committed.values()).extracting(GlobalBlock::block, GlobalBlock::holder).containsExactly(tuple(2L, "a"), tuple(3L, "a"));
        assertThat(committed.get(2L).version()).isEqualTo(blocksAt(home).get(0).version());
    }

    @Test
    void aSiteThatDiesLeavesItsWritesToBeRecoveredFromTheHome() {
        BlockDevice device = open();
        device.write(0, filled(1, 1), false).join();

        controller.expire(IMAGE);
        Controller.Opened next = controller.forSite("c").open(IMAGE, 0);

        assertThat(next.recovery().syncSites()).containsExactly(Set.of("a"));
    }

    @Test
    void readsAskTheHolderOfEachBlockOnceAndZerosNobody() {
        long version = commitHeldByC(5, 4);
        BlockDevice device = open();
        device.write(6 * BLOCK_SIZE, filled(1, 6), false).join();
        device.trim(7 * BLOCK_SIZE, BLOCK_SIZE, false).join();
        peers.fetches.clear();

        byte[] read = bytes(device.read(4 * BLOCK_SIZE, 5 * BLOCK_SIZE).join());
        assertThat(counted).as("read here (zeros), fetched").hasToString("[3, 2]");

        assertThat(Arrays.copyOfRange(read, 0, BLOCK_SIZE)).as("never written").containsOnly(0);
        assertThat(Arrays.copyOfRange(read, BLOCK_SIZE, 2 * BLOCK_SIZE)).as("committed at c").containsOnly(4);
        assertThat(Arrays.copyOfRange(read, 2 * BLOCK_SIZE, 3 * BLOCK_SIZE)).as("written here").containsOnly(6);
        assertThat(Arrays.copyOfRange(read, 3 * BLOCK_SIZE, 5 * BLOCK_SIZE)).as("trimmed, never written").containsOnly(0);
        assertThat(peers.fetches).extracting(Fetch::site, Fetch::blocks, Fetch::versions)
                .containsExactlyInAnyOrder(tuple("a", List.of(6L), List.of(versionAt(home, 6))), tuple("c", List.of(5L), List.of(version)));
        peers.fetches.clear();
        assertThat(bytes(device.read(7 * BLOCK_SIZE, 3 * BLOCK_SIZE).join())).containsOnly(0);
        assertThat(peers.fetches).as("zeros are read without asking anyone").isEmpty();
        assertThat(counted).hasToString("[6, 2]");
        assertThat(device.blockStatus(4 * BLOCK_SIZE, 4 * BLOCK_SIZE).join())
                .containsExactly(Extent.zeroHole(BLOCK_SIZE), Extent.data(2 * BLOCK_SIZE), Extent.zeroHole(BLOCK_SIZE));
        assertThat(new Locality().blockStatus(device, 4 * BLOCK_SIZE, 4 * BLOCK_SIZE).join()).containsExactly(
                new BlockDescriptor(BLOCK_SIZE, Locality.ZERO), new BlockDescriptor(2 * BLOCK_SIZE, Locality.ELSEWHERE), new BlockDescriptor(BLOCK_SIZE, Locality.ZERO));
        device.close();
    }

    @Test
    void aPushTheHomeFailsOrRefusesFailsTheWriteAndLeavesNothingToFlush() {
        BlockDevice device = open();

        peers.failing = true;
        assertThatThrownBy(() -> device.write(BLOCK_SIZE, filled(1, 3), false).join()).cause()
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                .hasMessage("image 'disk': the write of block 1 is not acknowledged: its home, site 'a', does not hold it; it did not answer: site a is down");
        peers.failing = false;
        peers.refusing = true;
        assertThatThrownBy(() -> device.writeZeroes(0, 2 * BLOCK_SIZE, false, true).join()).cause()
                .hasMessage("image 'disk': the write of block 0 is not acknowledged: its home, site 'a', does not hold it;"
                        + " it refused the copy (the image open for write there, or its epoch fenced)");
        device.close();

        assertThat(controller.view(IMAGE)).isEmpty();
    }

    @Test
    void aReadRacingANewerWriteAsksForTheNewerVersion() {
        BlockDevice device = open();
        device.write(5 * BLOCK_SIZE, filled(1, 1), false).join();
        peers.holding = true;
        CompletableFuture<Void> newer = device.write(5 * BLOCK_SIZE, filled(1, 2), false);
        assertThat(newer).as("the home stored it, its answer is held").isNotDone();
        peers.fetches.clear();

        assertThat(bytes(device.read(5 * BLOCK_SIZE, BLOCK_SIZE).join())).containsOnly(2);

        assertThat(peers.fetches).hasSize(2);
        assertThat(peers.fetches.get(1).versions().get(0)).isGreaterThan(peers.fetches.get(0).versions().get(0));
        peers.release();
        newer.join();
        device.close();
    }

    @Test
    void aPartialWriteMergesWithTheBlockAtTheHome() {
        BlockDevice device = open();
        device.write(3 * BLOCK_SIZE, filled(1, 5), false).join();

        device.write(3 * BLOCK_SIZE + 100, Unpooled.wrappedBuffer(new byte[] {9, 9}), false).join();
        device.writeZeroes(3 * BLOCK_SIZE + 200, 10, false, false).join();

        byte[] read = bytes(device.read(3 * BLOCK_SIZE, BLOCK_SIZE).join());
        byte[] expected = new byte[BLOCK_SIZE];
        Arrays.fill(expected, (byte) 5);
        expected[100] = 9;
        expected[101] = 9;
        Arrays.fill(expected, 200, 210, (byte) 0);
        assertThat(read).isEqualTo(expected);
        device.close();
    }

    /** Commits {@code block} with data {@code value} held at site c, as if c had written it; returns its version. */
    private long commitHeldByC(long block, int value) {
        Controller c = controller.forSite("c");
        long epoch = c.open(IMAGE, 0).epoch();
        long version = Version.compose(epoch, 1);
        ByteBuffer data = ByteBuffer.allocate(BLOCK_SIZE);
        Arrays.fill(data.array(), (byte) value);
        peers.push("c", new ImageRef(controller.identity(IMAGE), IMAGE, 64 * BLOCK_SIZE), List.of(new Copy(block, version, data))).join();
        peers.pushes.clear();
        c.flush(IMAGE, epoch, List.of(new BlockVersion(block, version, BlockState.DATA)), "c", true);
        return version;
    }

    private static List<BlockVersion> blocksAt(MemoryBlockStore store) {
        List<BlockVersion> blocks = new ArrayList<>();
        store.forEachBlock(store.image(IMAGE).id(), blocks::add);
        return blocks;
    }

    private static long versionAt(MemoryBlockStore store, long block) {
        return blocksAt(store).stream().filter(copy -> copy.block() == block).findFirst().orElseThrow().version();
    }

    private record Push(String site, List<Long> blocks) {}

    private record Fetch(String site, List<Long> blocks, List<Long> versions) {}

    /**
     * Peers that call the peer services of sites in this process and record the pushes and
     * fetches; pushes may fail, be refused, or be stored with their answers held until released.
     */
    private static final class SitePeers extends AbstractTestingPeers {
        final List<Push> pushes = new CopyOnWriteArrayList<>();
        final List<Fetch> fetches = new CopyOnWriteArrayList<>();
        volatile boolean failing;
        volatile boolean refusing;
        volatile boolean holding;
        private final Map<String, PeerService> sites;
        private final List<Runnable> held = new CopyOnWriteArrayList<>();

        SitePeers(Map<String, PeerService> sites) {
            this.sites = sites;
        }

        void release() {
            holding = false;
            held.forEach(Runnable::run);
        }

        @Override
        public CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted) {
            fetches.add(new Fetch(site, wanted.stream().map(Wanted::block).toList(), wanted.stream().map(Wanted::version).toList()));
            return sites.get(site).fetch(image, wanted);
        }

        @Override
        public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
            pushes.add(new Push(site, copies.stream().map(Copy::block).toList()));
            if (failing) {
                return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site " + site + " is down"));
            }
            if (refusing) {
                return CompletableFuture.completedFuture(new boolean[copies.size()]);
            }
            CompletableFuture<boolean[]> stored = sites.get(site).push(image, copies);
            if (!holding) {
                return stored;
            }
            stored.join();
            CompletableFuture<boolean[]> answer = new CompletableFuture<>();
            held.add(() -> answer.complete(stored.join()));
            return answer;
        }
    }
}
