package io.heliotrope.storage.peer.grpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.FetchRequest;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerMetrics.BlockBytes;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.peer.TestingSiteDirectory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

/** Site a calls site b over gRPC on 127.0.0.1, as {@link GrpcPeers} and {@link PeerGrpcService} do between sites. */
class TestGrpcPeers {
    private static final long SIZE = 4096L * BLOCK_SIZE;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** For the calls that must time out. */
    private static final Duration SHORT_TIMEOUT = Duration.ofMillis(500);

    private final TestingSiteDirectory directory = new TestingSiteDirectory("a").put("a", "127.0.0.1:1");
    private final TestingPeerSite b = new TestingPeerSite("b", directory);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PeerMetrics metrics = new PeerMetrics(registry);
    private final GrpcPeers peers = new GrpcPeers("a", directory.put("b", b.address()), metrics, new GrpcPeersConfig(4, TIMEOUT));
    private final ImageRef disk = new ImageRef(UUID.randomUUID(), "disk", SIZE);

    TestGrpcPeers() throws IOException {}

    @AfterEach
    void close() {
        peers.close();
        b.close();
    }

    @Test
    void fetchReturnsTheDataOfBlocksAtTheVersionsWantedAndLeavesOutTheRest() {
        long id = b.store.createImage("disk", SIZE, disk.identity()).id();
        b.store.write(id, 1, filled(1, 7), 10, SKIP, false);
        b.store.write(id, 2, filled(2, 8), 10, SKIP, false);

        List<Copy> copies = peers.fetch("b", disk, List.of(new Wanted(1, 10), new Wanted(2, 11), new Wanted(3, 10))).join();

        assertThat(copies).extracting(Copy::block, Copy::version, Copy::data).containsExactly(tuple(1L, 10L, filled(1, 7)));
    }

    @Test
    void aZeroMarkerComesBackWithoutItsBytes() {
        long id = b.store.createImage("disk", SIZE, disk.identity()).id();
        b.store.zeroBlocks(id, new long[] {4}, 12, SKIP, false);

        List<Copy> copies = peers.fetch("b", disk, List.of(new Wanted(4, 12))).join();

        assertThat(copies).extracting(Copy::block, Copy::version, Copy::zero).containsExactly(tuple(4L, 12L, true));
        assertThat(bytes(registry, "b", "received")).isPositive().isLessThan(64);
    }

    @Test
    void pushStoresNewerCopiesAndKeepsANewerVersionThatIsThere() {
        long id = b.store.createImage("disk", SIZE, disk.identity()).id();
        b.store.write(id, 2, filled(2, 1), 10, SKIP, false);

        boolean[] held = peers.push("b", disk, List.of(new Copy(1, 11, filled(1, 3)), new Copy(2, 9, filled(2, 4)), new Copy(3, 5, null))).join();

        assertThat(held).as("block 2 is held: a newer version is there").containsExactly(true, true, true);
        assertThat(read(b.store, id, 1)).isEqualTo(filled(1, 3));
        assertThat(read(b.store, id, 2)).isEqualTo(filled(2, 1));
        assertThat(b.store.usage(id).zeroBlocks()).isEqualTo(1);
    }

    @Test
    void pushesAndFetchesCountTheBlockDataTheyCarryPerPeerAndPerImage() {
        long id = b.store.createImage("disk", SIZE, disk.identity()).id();
        b.store.write(id, 1, filled(1, 7), 10, SKIP, false);
        b.store.zeroBlocks(id, new long[] {2}, 10, SKIP, false);

        peers.fetch("b", disk, List.of(new Wanted(1, 10), new Wanted(2, 10), new Wanted(3, 10))).join();
        peers.push("b", disk, List.of(new Copy(4, 11, filled(4, 1)), new Copy(5, 11, filled(5, 2)), new Copy(6, 11, null))).join();

        BlockBytes expected = new BlockBytes(2 * BLOCK_SIZE, BLOCK_SIZE);
        assertThat(metrics.blockBytes().byPeer()).containsExactly(entry("b", expected));
        assertThat(metrics.blockBytes().byImage()).containsExactly(entry("disk", expected));
        assertThat(registry.get("heliotrope.peer.fetch.bytes").tag("peer", "b").counter().count()).isEqualTo(BLOCK_SIZE);
    }

    @Test
    void pushMakesTheCopyOfAnImageTheSiteHasNotSeenWithItsIdentity() {
        assertThat(peers.push("b", disk, List.of(new Copy(5, 3, filled(5, 6)))).join()).containsExactly(true);

        assertThat(b.store.image("disk").identity()).isEqualTo(disk.identity());
        assertThat(read(b.store, b.store.image("disk").id(), 5)).isEqualTo(filled(5, 6));
    }

    @Test
    void pushToANameAnotherImageHoldsIsRefused() {
        long id = b.store.createImage("disk", SIZE, UUID.randomUUID()).id();

        assertThat(peers.push("b", disk, List.of(new Copy(5, 3, filled(5, 6)))).join()).containsExactly(false);
        assertThat(b.store.usage(id).dataBlocks()).isZero();
    }

    @Test
    void aLargeFetchArrivesWholeInTheOrderAsked() {
        long id = b.store.createImage("disk", SIZE, disk.identity()).id();
        List<Wanted> wanted = new ArrayList<>();
        List<Copy> expected = new ArrayList<>();
        for (int block = 2047; block >= 0; block--) {
            if (block % 7 == 0) {
                b.store.zeroBlocks(id, new long[] {block}, 100 + block, SKIP, false);
            } else {
                b.store.write(id, block, filled(block, block), 100 + block, SKIP, false);
            }
            // Every 11th block is asked at another version: not there.
            wanted.add(new Wanted(block, block % 11 == 0 ? 99 : 100 + block));
            if (block % 11 != 0) {
                expected.add(new Copy(block, 100 + block, block % 7 == 0 ? null : filled(block, block)));
            }
        }

        assertThat(peers.fetch("b", disk, wanted).join()).containsExactlyElementsOf(expected);
    }

    @Test
    void aLargePushIsAnsweredCopyByCopy() {
        long id = b.store.createImage("disk", SIZE, disk.identity()).id();
        long end = b.store.image("disk").blockCount();
        List<Copy> copies = new ArrayList<>();
        for (int block = 0; block < 2048; block++) {
            // Every fifth copy is beyond the image's end: refused.
            copies.add(new Copy(block % 5 == 0 ? end + block : block, 500, filled(block, block)));
        }

        boolean[] stored = peers.push("b", disk, copies).join();

        for (int block = 0; block < 2048; block++) {
            assertThat(stored[block]).as("block %d stored", block).isEqualTo(block % 5 != 0);
            assertThat(read(b.store, id, block)).isEqualTo(block % 5 == 0 ? ByteBuffer.allocate(BLOCK_SIZE) : filled(block, block));
        }
    }

    @Test
    void bytesAreCountedPerPeerAndDirectionOnBothSides() {
        List<Copy> copies = new ArrayList<>();
        List<Wanted> wanted = new ArrayList<>();
        for (int block = 0; block < 8; block++) {
            copies.add(new Copy(block, 5, filled(block, block)));
            wanted.add(new Wanted(block, 5));
        }
        int payload = 8 * BLOCK_SIZE;

        peers.push("b", disk, copies).join();
        assertThat(bytes(registry, "b", "sent")).isGreaterThanOrEqualTo(payload);
        assertThat(bytes(b.registry, "a", "received")).isGreaterThanOrEqualTo(payload);
        assertThat(registry.get("heliotrope.peer.push.bytes").tag("peer", "b").counter().count()).isEqualTo(payload);

        assertThat(peers.fetch("b", disk, wanted).join()).hasSize(8);
        assertThat(bytes(registry, "b", "received")).isGreaterThanOrEqualTo(payload);
        assertThat(bytes(b.registry, "a", "sent")).isGreaterThanOrEqualTo(payload);
        assertThat(registry.get("heliotrope.peer.fetch.blocks").tag("peer", "b").tag("outcome", "found").counter().count()).isEqualTo(8);
    }

    @Test
    void aPeerThatAcceptsConnectionsAndNeverAnswersFailsWithinTheTimeout() throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            directory.put("c", "127.0.0.1:" + silent.getLocalPort());

            try (GrpcPeers hasty = hasty()) {
                assertFailsInTime(hasty.fetch("c", disk, List.of(new Wanted(1, 1))), ErrorCode.PEER_UNAVAILABLE);
            }
            assertThat(registry.get("heliotrope.peer.failures").tag("peer", "c").tag("call", "fetch").counter().count()).isEqualTo(1);
        }
    }

    @Test
    void aPeerWhoseStoreNeverAnswersFailsWithinTheTimeout() throws IOException {
        try (TestingPeerSite stuck = TestingPeerSite.stuck("c", directory)) {
            directory.put("c", stuck.address());

            try (GrpcPeers hasty = hasty()) {
                assertFailsInTime(hasty.push("c", disk, List.of(new Copy(1, 1, null))), ErrorCode.PEER_UNAVAILABLE);
            }
        }
    }

    @Test
    void aSiteMissingFromTheRegistryIsNotFound() {
        assertFailsInTime(peers.ping("nowhere"), ErrorCode.SITE_NOT_FOUND);
    }

    @Test
    void callsGoWhereTheRegistrySaysTheSiteIsNow() throws IOException {
        b.store.createImage("disk", SIZE, disk.identity());
        assertThat(peers.fetch("b", disk, List.of(new Wanted(1, 10))).join()).isEmpty();
        try (TestingPeerSite moved = new TestingPeerSite("b2", directory)) {
            moved.store.write(moved.store.createImage("disk", SIZE, disk.identity()).id(), 1, filled(1, 7), 10, SKIP, false);
            directory.put("b", moved.address());

            assertThat(peers.fetch("b", disk, List.of(new Wanted(1, 10))).join()).extracting(Copy::data).containsExactly(filled(1, 7));
        }
    }

    @Test
    void backgroundFetchesTravelMarkedOnConnectionsOfTheirOwn() throws IOException {
        FetchRecorder recorder = new FetchRecorder();
        try (TestingPeerSite recorded = new TestingPeerSite("b", directory, recorder);
             GrpcPeers twoBulk = new GrpcPeers("a", directory, metrics, new GrpcPeersConfig(3, 2, TIMEOUT))) {
            directory.put("b", recorded.address());
            long id = recorded.store.createImage("disk", SIZE, disk.identity()).id();
            List<Wanted> wanted = new ArrayList<>();
            for (int block = 0; block < 8 * GrpcPeers.BATCH; block++) {
                recorded.store.write(id, block, filled(block, 1), 10, SKIP, false);
                wanted.add(new Wanted(block, 10));
            }

            assertThat(twoBulk.fetch("b", disk, wanted).join()).hasSize(wanted.size());
            assertThat(twoBulk.fetchInBackground("b", disk, wanted).join()).hasSize(wanted.size());
            assertThat(twoBulk.fetch("b", disk, wanted).join()).hasSize(wanted.size());

            Map<Boolean, Set<SocketAddress>> connections = recorder.connections();
            assertThat(connections.get(false)).hasSize(3);
            assertThat(connections.get(true)).hasSize(2).doesNotContainAnyElementsOf(connections.get(false));
            assertThat(recorder.requests()).isEqualTo(3 * 8);
        }
    }

    @Test
    void pingMeasuresARoundTrip() {
        assertThat(peers.ping("b").join()).isPositive().isLessThan(TIMEOUT);
    }

    private GrpcPeers hasty() {
        return new GrpcPeers("a", directory, new PeerMetrics(registry), new GrpcPeersConfig(1, SHORT_TIMEOUT));
    }

    /** The call fails with {@code code}, and well before the timeout of the calls that do not have to. */
    private static void assertFailsInTime(CompletableFuture<?> call, ErrorCode code) {
        long start = System.nanoTime();
        Throwable failure = call.handle((value, e) -> e).join();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SHORT_TIMEOUT.multipliedBy(4));
        assertThat(HeliotropeException.unwrap(failure)).isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(code));
    }

    /** Which client connections the fetch requests came on, by their {@code background} flag. */
    private static final class FetchRecorder implements ServerInterceptor {
        private final Map<Boolean, Set<SocketAddress>> connections = new ConcurrentHashMap<>();
        private final AtomicInteger requests = new AtomicInteger();

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            SocketAddress client = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                @Override
                public void onMessage(Q message) {
                    if (message instanceof FetchRequest fetch) {
                        requests.incrementAndGet();
                        connections.computeIfAbsent(fetch.getBackground(), flag -> ConcurrentHashMap.newKeySet()).add(client);
                    }
                    super.onMessage(message);
                }
            };
        }

        Map<Boolean, Set<SocketAddress>> connections() {
            return Map.copyOf(connections);
        }

        int requests() {
            return requests.get();
        }
    }

    private static double bytes(MeterRegistry registry, String peer, String direction) {
        Counter counter = registry.find("heliotrope.peer.bytes").tag("peer", peer).tag("direction", direction).counter();
        return counter == null ? 0 : counter.count();
    }

    private static ByteBuffer read(MemoryBlockStore store, long id, long block) {
        ByteBuffer data = ByteBuffer.allocate(BLOCK_SIZE);
        store.read(id, block, 1, data);
        return data.flip();
    }

    /** A block that tells its number and its fill apart from any other. */
    private static ByteBuffer filled(int block, int value) {
        ByteBuffer data = ByteBuffer.allocate(BLOCK_SIZE);
        while (data.hasRemaining()) {
            data.put((byte) value);
        }
        return data.putInt(0, block).flip();
    }
}
