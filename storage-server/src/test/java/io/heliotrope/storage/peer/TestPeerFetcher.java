package io.heliotrope.storage.peer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPeerFetcher {
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ImageInfo image = store.createImage("disk", 512 * BLOCK_SIZE, UUID.randomUUID());
    private final ScriptedPeers peers = new ScriptedPeers();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final SiteDirectory sites = new SiteDirectory() {
        @Override
        public Optional<String> grpcAddress(String site) {
            return Optional.of(site + ":7410");
        }

        @Override
        public List<String> others() {
            return List.of("a", "c");
        }
    };

    @AfterEach
    void close() {
        executor.shutdownNow();
        store.close();
    }

    @Test
    void concurrentMissesOfOneBlockShareOneRequestAndTheCopyIsStoredNeverDirty() {
        peers.holds("a", 3, 7, (byte) 5);
        PeerFetcher fetcher = fetcher(Duration.ofSeconds(10));

        CompletableFuture<Void> first = fetch(fetcher, 3, 7, "a");
        CompletableFuture<Void> second = fetch(fetcher, 3, 7, "a");
        peers.release();
        first.join();
        second.join();

        assertThat(peers.requests()).containsExactly("a:[3]");
        assertThat(read(3)).containsOnly(5);
        assertThat(store.dirtyBlocks(image.id())).isEmpty();
    }

    @Test
    void theMissesOfOneReadGoToEachHolderInRequestsOfOneBatch() {
        List<GlobalBlock> wanted = new ArrayList<>();
        for (long block = 0; block < PeerFetcher.BATCH + 2; block++) {
            String holder = block == 1 ? "c" : "a";
            peers.holds(holder, block, 7, (byte) block);
            wanted.add(new GlobalBlock(block, 7, holder));
        }
        List<CompletableFuture<Void>> fetches = fetcher(Duration.ofSeconds(10)).fetch(image, wanted, CopyRule.NEWER);
        peers.release();
        fetches.forEach(CompletableFuture::join);

        assertThat(peers.requests()).hasSize(3).contains("c:[1]");
        assertThat(read(PeerFetcher.BATCH + 1)).containsOnly((byte) (PeerFetcher.BATCH + 1));
    }

    @Test
    void aHolderWithoutTheVersionIsReplacedByAnotherSiteThatHasIt() {
        peers.holds("a", 2, 6, (byte) 1);
        peers.holds("c", 2, 7, (byte) 9);
        peers.release();

        fetch(fetcher(Duration.ofSeconds(10)), 2, 7, "a").join();

        assertThat(peers.requests()).containsExactly("a:[2]", "c:[2]");
        assertThat(read(2)).containsOnly(9);
    }

    @Test
    void aBlockNoSiteHasFailsAsUnavailableNamingIt() {
        peers.release();

        assertThatThrownBy(() -> fetch(fetcher(Duration.ofSeconds(10)), 4, 7, "a").join())
                .hasCauseInstanceOf(HeliotropeException.class)
                .satisfies(e -> assertThat(((HeliotropeException) e.getCause()).code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                .hasMessageContaining("no site gave block 4 at version 7");
        assertThat(peers.requests()).containsExactly("a:[4]", "c:[4]");
    }

    @Test
    void aSilentHolderFailsTheReadWithinTheTimeout() {
        long start = System.nanoTime();

        assertThatThrownBy(() -> fetch(fetcher(Duration.ofMillis(200)), 4, 7, "a").join())
                .hasMessageContaining("did not arrive from site 'a' or any other site within 200 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aFetchedCopyNeverReplacesANewerLocalWrite() {
        peers.holds("a", 1, 7, (byte) 3);
        store.write(image.id(), 1, ByteBuffer.wrap(filled((byte) 8)), 9, Dirty.RECORD, false);
        peers.release();

        fetch(fetcher(Duration.ofSeconds(10)), 1, 7, "a").join();

        assertThat(read(1)).containsOnly(8);
        assertThat(store.dirtyBlocks(image.id())).containsExactly(new BlockVersion(1, 9, io.heliotrope.storage.BlockStore.BlockState.DATA));
    }

    @Test
    void aZeroMarkerArrivesWithoutData() {
        peers.holdsZero("a", 6, 7);
        peers.release();

        fetch(fetcher(Duration.ofSeconds(10)), 6, 7, "a").join();

        assertThat(store.readCopies(image.id(), new long[] {6}, ByteBuffer.allocate(BLOCK_SIZE)))
                .containsExactly(new BlockVersion(6, 7, io.heliotrope.storage.BlockStore.BlockState.ZERO));
    }

    @Test
    void aBackgroundPullJoinsAForegroundFetchOfTheSameBlockAndViceVersa() {
        peers.holds("a", 3, 7, (byte) 3);
        peers.holds("a", 5, 7, (byte) 5);
        PeerFetcher fetcher = fetcher(Duration.ofSeconds(10));

        CompletableFuture<Void> foreground = fetch(fetcher, 3, 7, "a");
        CompletableFuture<Void> joinedByPull = fetcher.fetchInBackground(image, List.of(new GlobalBlock(3, 7, "a")), CopyRule.NEWER).get(0);
        CompletableFuture<Void> pulled = fetcher.fetchInBackground(image, List.of(new GlobalBlock(5, 7, "a")), CopyRule.NEWER).get(0);
        CompletableFuture<Void> joinedByRead = fetch(fetcher, 5, 7, "a");
        peers.release();

        assertThat(joinedByPull).isSameAs(foreground);
        assertThat(joinedByRead).isSameAs(pulled);
        CompletableFuture.allOf(foreground, pulled).join();
        assertThat(peers.requests()).containsExactly("a:[3]", "background a:[5]");
        assertThat(read(5)).containsOnly(5);
        assertThat(redundant()).isZero();
    }

    @Test
    void aFetchLeavesTheTableOnlyAfterItsAskersDependentsRan() {
        peers.holds("a", 3, 7, (byte) 3);
        PeerFetcher fetcher = fetcher(Duration.ofSeconds(10));
        CompletableFuture<Void> first = fetch(fetcher, 3, 7, "a");
        List<CompletableFuture<Void>> askedMeanwhile = new ArrayList<>();
        CompletableFuture<Void> dependent = first.thenRun(() -> askedMeanwhile.add(fetch(fetcher, 3, 7, "a")));

        peers.release();
        dependent.join();

        assertThat(askedMeanwhile).containsExactly(first);
        assertThat(fetch(fetcher, 3, 7, "a")).as("an asker that saw the block stale just before it arrived").isSameAs(first);
        assertThat(peers.requests()).containsExactly("a:[3]");
        // The key leaves a second after the arrival: a later asker then starts a fetch of its own.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (fetch(fetcher, 3, 7, "a") == first && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(peers.requests()).as("once done, a block that is stale again is asked again").containsExactly("a:[3]", "a:[3]");
    }

    @Test
    void aCopyThatArrivesWhenTheLocalCopyAlreadyHasItsVersionIsCountedRedundant() {
        peers.holds("a", 3, 7, (byte) 3);
        peers.holds("a", 4, 7, (byte) 4);
        store.storeCopies(image.id(), List.of(new Copy(3, 7, ByteBuffer.wrap(filled((byte) 3)))), CopyRule.NEWER, false);
        peers.release();

        fetcher(Duration.ofSeconds(10)).fetch(image, List.of(new GlobalBlock(3, 7, "a"), new GlobalBlock(4, 7, "a")), CopyRule.NEWER)
                .forEach(CompletableFuture::join);

        assertThat(redundant()).isEqualTo(1);
    }

    /** Copies from site a that arrived when the local copy had their version; a link's meters are made on its first use. */
    private double redundant() {
        Counter counter = registry.find("heliotrope.peer.fetch.redundant.blocks").tag("peer", "a").counter();
        return counter == null ? 0 : counter.count();
    }

    private CompletableFuture<Void> fetch(PeerFetcher fetcher, long block, long version, String holder) {
        return fetcher.fetch(image, List.of(new GlobalBlock(block, version, holder)), CopyRule.NEWER).get(0);
    }

    private PeerFetcher fetcher(Duration timeout) {
        return new PeerFetcher(store, peers, sites, new PeerMetrics(registry), executor, timeout);
    }

    private byte[] read(long block) {
        ByteBuffer buffer = ByteBuffer.allocate(BLOCK_SIZE);
        store.read(image.id(), block, 1, buffer);
        return buffer.array();
    }

    private static byte[] filled(byte value) {
        byte[] data = new byte[BLOCK_SIZE];
        Arrays.fill(data, value);
        return data;
    }

    /** Sites with scripted copies, silent until {@link #release()}. */
    private static final class ScriptedPeers extends AbstractTestingPeers {
        private final Map<String, Map<Long, Copy>> copies = new HashMap<>();
        private final List<String> requests = new ArrayList<>();
        private final CompletableFuture<Void> released = new CompletableFuture<>();

        synchronized void holds(String site, long block, long version, byte fill) {
            copies.computeIfAbsent(site, s -> new HashMap<>()).put(block, new Copy(block, version, ByteBuffer.wrap(filled(fill))));
        }

        synchronized void holdsZero(String site, long block, long version) {
            copies.computeIfAbsent(site, s -> new HashMap<>()).put(block, new Copy(block, version, null));
        }

        /** Sites answer once released; until then a request waits. */
        void release() {
            released.complete(null);
        }

        synchronized List<String> requests() {
            return List.copyOf(requests);
        }

        @Override
        public CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted) {
            synchronized (this) {
                requests.add(site + ":" + wanted.stream().map(Wanted::block).toList());
            }
            return released.thenApply(ignored -> answer(site, wanted));
        }

        @Override
        public CompletableFuture<List<Copy>> fetchInBackground(String site, ImageRef image, List<Wanted> wanted) {
            return fetch("background " + site, image, wanted).thenApply(ignored -> answer(site, wanted));
        }

        private synchronized List<Copy> answer(String site, List<Wanted> wanted) {
            Map<Long, Copy> held = copies.getOrDefault(site, Map.of());
            return wanted.stream().map(w -> held.get(w.block())).filter(c -> c != null && c.version() == wantedVersion(wanted, c.block()))
                    .map(c -> new Copy(c.block(), c.version(), c.data() == null ? null : c.data().duplicate())).toList();
        }

        private static long wantedVersion(List<Wanted> wanted, long block) {
            return wanted.stream().filter(w -> w.block() == block).findFirst().orElseThrow().version();
        }
    }
}
