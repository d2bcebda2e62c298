package io.heliotrope.storage.image.mode;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.Replication.Mode;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import io.heliotrope.storage.peer.GroupSync;
import io.heliotrope.storage.peer.SiteDirectory;
import io.heliotrope.storage.propagation.TestingScheduler;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.WanWaits;
import io.heliotrope.storage.view.WanWaits.Cause;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class TestSyncReplicator {
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ImageInfo image = store.createImage("disk", 64 * BLOCK_SIZE, UUID.randomUUID());
    private final RecordingSession session = new RecordingSession(image);
    private final TestingScheduler timers = new TestingScheduler(Instant.EPOCH);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void aWriteIsAcknowledgedOnceTheFirstSitesHoldEveryBlockOfIt() {
        RecordingPeers peers = new RecordingPeers();
        ByteBuffer data = ByteBuffer.allocate(2 * BLOCK_SIZE);
        data.put(BLOCK_SIZE, (byte) 9);

        List<Cause> waits = new ArrayList<>();
        CompletableFuture<Void> ack = replicator(peers, new Registry("b", "c", "d"), 2, 0, Duration.ZERO, (cause, nanos) -> waits.add(cause))
                .wrote(4, 2, 77, data);

        assertThat(ack).isNotDone();
        peers.answerAll();
        assertThat(ack).isNotDone();
        assertThat(waits).as("the write still waits for its record").isEmpty();
        session.recordAll();
        assertThat(ack).isCompleted();
        assertThat(waits).as("one wait on the WAN, the write's").containsExactly(Cause.SYNC);
        assertThat(session.recorded).containsExactly(Set.of("b", "c"));
        assertThat(peers.pushed).containsOnlyKeys("b", "c");
        assertThat(peers.pushed.get("b")).extracting(Copy::block, Copy::version).containsExactly(tuple(4L, 77L), tuple(5L, 77L));
        assertThat(peers.pushed.get("c").get(1).data().get(0)).isEqualTo((byte) 9);
        assertThat(registry.get("heliotrope.sync.writes").tag("outcome", "copied").counter().count()).isEqualTo(1);
    }

    @Test
    void aSiteThatFailsIsReplacedByTheNextAndZeroMarkersTravelWithoutData() {
        RecordingPeers peers = new RecordingPeers("b");

        SyncReplicator replicator = replicator(peers, new Registry("b", "c"), 1, 0, Duration.ZERO, WanWaits.NONE);
        CompletableFuture<Void> ack = replicator.wrote(3, 1, 5, null);
        peers.answerAll();
        peers.answerAll();
        session.recordAll();

        assertThat(ack).isCompleted();
        assertThat(peers.pushed).containsOnlyKeys("b", "c");
        assertThat(peers.pushed.get("c")).singleElement().satisfies(copy -> assertThat(copy.zero()).isTrue());
        // The replacement sticks, and its set was recorded before the write was acknowledged.
        assertThat(session.recorded).containsExactly(Set.of("c"));
        peers.pushed.clear();
        CompletableFuture<Void> next = replicator.wrote(4, 1, 6, null);
        peers.answerAll();
        assertThat(next).isCompleted();
        assertThat(peers.pushed).containsOnlyKeys("c");
        assertThat(session.recorded).hasSize(1);
        assertThat(replicator.status()).isEqualTo(new SyncStatus("disk", 1, 2, List.of("c"), Map.of("b", "b is down"), 0, false));
    }

    @Test
    void aWriteWhoseSitesTheControllerDidNotRecordFailsAndTheNextAsksAgain() {
        RecordingPeers peers = new RecordingPeers();
        SyncReplicator replicator = replicator(peers, new Registry("b"), 1, 0, Duration.ZERO, WanWaits.NONE);

        CompletableFuture<Void> ack = replicator.wrote(0, 1, 5, null);
        peers.answerAll();
        session.refuseAll();

        assertThatThrownBy(ack::join).cause().isInstanceOfSatisfying(HeliotropeException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                .hasMessage("image 'disk': sites [b] hold the write, but the controller did not record them as holding its sync copies:"
                        + " the controller did not answer");
        CompletableFuture<Void> again = replicator.wrote(0, 1, 6, null);
        peers.answerAll();
        session.recordAll();
        assertThat(again).isCompleted();
        assertThat(session.recorded).containsExactly(Set.of("b"), Set.of("b"));
    }

    @Test
    void aSiteThatDoesNotHoldTheCopiesIsReplacedByTheNext() {
        RecordingPeers peers = new RecordingPeers();
        peers.refusing.add("b");

        CompletableFuture<Void> ack = replicator(peers, new Registry("b", "c"), 1, 0, Duration.ZERO, WanWaits.NONE).wrote(0, 1, 5, null);
        peers.answerAll();
        peers.answerAll();
        session.recordAll();

        assertThat(ack).isCompleted();
        assertThat(peers.pushed).containsOnlyKeys("b", "c");
    }

    @Test
    void aWriteWaitsForASiteThatRegistersAfterTheOpen() {
        RecordingPeers peers = new RecordingPeers();
        Registry sites = new Registry();
        sites.registering.add("b");
        SyncReplicator replicator = replicator(peers, sites, 1, 0, Duration.ofMinutes(1), WanWaits.NONE);

        CompletableFuture<Void> ack = replicator.wrote(0, 1, 5, null);
        assertThat(peers.pushed).as("no site listed yet").isEmpty();
        timers.advance(SyncReplicator.RETRY);
        peers.answerAll();
        session.recordAll();

        assertThat(ack).isCompleted();
        assertThat(sites.relists).as("the registry was read again").isEqualTo(1);
        assertThat(peers.pushed).containsOnlyKeys("b");
        assertThat(session.recorded).containsExactly(Set.of("b"));
    }

    @Test
    void belowItsSyncMinAWriteFailsOnceItsPatienceRanOut() {
        RecordingPeers peers = new RecordingPeers("b");

        CompletableFuture<Void> ack = replicator(peers, new Registry("b"), 1, 0, Duration.ZERO, WanWaits.NONE).wrote(3, 1, 5, ByteBuffer.allocate(BLOCK_SIZE));
        peers.answerAll();

        assertThatThrownBy(ack::join).cause().isInstanceOfSatisfying(HeliotropeException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                .hasMessage("image 'disk': the write at block 3 is stored here, but only 1 of the 2 copies (this site's included) its sync min"
                        + " needs were made within 0 ms: no answer from b (b is down); the registry lists [b]");
        assertThat(registry.get("heliotrope.sync.writes").tag("outcome", "refused").counter().count()).isEqualTo(1);
    }

    @Test
    void atItsSyncMinAWriteIsAcknowledgedDegradedAndReachesTheSiteOnceItAnswersAgain() {
        RecordingPeers peers = new RecordingPeers("b");
        ByteBuffer data = ByteBuffer.allocate(BLOCK_SIZE).put(0, (byte) 7);
        store.write(image.id(), 3, data.duplicate(), 5, Dirty.SKIP, false);
        SyncReplicator replicator = replicator(peers, new Registry("b"), 1, 1, Duration.ofMinutes(1), WanWaits.NONE);

        CompletableFuture<Void> ack = replicator.wrote(3, 1, 5, data);
        peers.answerAll();

        assertThat(ack).as("acknowledged with this site's copy alone").isCompleted();
        assertThat(replicator.status()).isEqualTo(new SyncStatus("disk", 1, 1, List.of(), Map.of("b", "b is down"), 1, true));
        assertThat(registry.get("heliotrope.sync.degraded.images").gauge().value()).isEqualTo(1);

        peers.failing.clear();
        peers.pushed.clear();
        timers.advance(SyncReplicator.TEND);
        assertThat(replicator.status().degraded()).as("healthy only once b holds what it missed").isTrue();
        peers.answerAll();

        assertThat(peers.pushed.get("b")).singleElement().satisfies(copy -> {
            assertThat(copy.block()).isEqualTo(3);
            assertThat(copy.version()).isEqualTo(5);
            assertThat(copy.data().get(0)).isEqualTo((byte) 7);
        });
        assertThat(replicator.status().degraded()).as("until b is recorded as holding its writes").isTrue();
        session.recordAll();
        assertThat(session.recorded).containsExactly(Set.of("b"));
        assertThat(replicator.status()).isEqualTo(new SyncStatus("disk", 1, 1, List.of("b"), Map.of(), 0, false));
        assertThat(registry.get("heliotrope.sync.degraded.images").gauge().value()).isZero();
        assertThat(registry.get("heliotrope.sync.caught.up.blocks").counter().count()).isEqualTo(1);
    }

    @Test
    void aWriteIsAcknowledgedWithoutASyncHereAFlushSyncsAndAWriteAfterAFlushStartsTheSyncTheNextFlushShares() {
        RecordingPeers peers = new RecordingPeers();
        List<Runnable> syncs = new ArrayList<>();
        GroupSync durableHere = new GroupSync(() -> { }, syncs::add);
        SyncReplicator replicator = replicator(peers, new Registry("b"), 1, 0, Duration.ZERO, (cause, nanos) -> { }, durableHere);

        CompletableFuture<Void> ack = replicator.wrote(1, 1, 5, null);
        peers.answerAll();
        session.recordAll();
        assertThat(ack).as("durable at b, written here").isCompleted();
        assertThat(syncs).as("no sync here for a write no FLUSH follows").isEmpty();
        CompletableFuture<Void> flush = replicator.flush(() -> CompletableFuture.failedFuture(new AssertionError("the store's own sync")));
        assertThat(flush).isNotDone();
        syncs.remove(0).run();
        assertThat(flush).isCompleted();

        CompletableFuture<Void> next = replicator.wrote(2, 1, 6, null);
        assertThat(syncs).as("started beside the copies").hasSize(1);
        peers.answerAll();
        assertThat(next).isCompleted();
        CompletableFuture<Void> nextFlush = replicator.flush(() -> CompletableFuture.failedFuture(new AssertionError("the store's own sync")));
        syncs.remove(0).run();
        assertThat(nextFlush).isCompleted();
        assertThat(syncs).as("the FLUSH shared the write's sync").isEmpty();
    }

    private SyncReplicator replicator(RecordingPeers peers, SiteDirectory sites, int copies, int min, Duration patience, WanWaits waits) {
        return replicator(peers, sites, copies, min, patience, waits, new GroupSync(() -> { }, Runnable::run));
    }

    private SyncReplicator replicator(RecordingPeers peers, SiteDirectory sites, int copies, int min, Duration patience, WanWaits waits,
            GroupSync durableHere) {
        Replication replication = new Replication(Mode.SYNC, 1000, 1, "", copies, min, 0, 0, Map.of(), false);
        List<SyncReplicator> open = new CopyOnWriteArrayList<>();
        SyncMetrics metrics = new SyncMetrics(registry, () -> open.stream().map(SyncReplicator::status).toList());
        SyncContext context = new SyncContext(peers, store, sites, timers, Runnable::run, patience, waits, durableHere);
        SyncReplicator replicator = new SyncReplicator(context, metrics, session, replication, String::compareTo, open::remove);
        open.add(replicator);
        return replicator;
    }

    /** A registry that lists its sites, and the {@code registering} ones too once read again. */
    private static final class Registry implements SiteDirectory {
        final List<String> listed = new CopyOnWriteArrayList<>();
        final List<String> registering = new CopyOnWriteArrayList<>();
        int relists;

        Registry(String... sites) {
            listed.addAll(List.of(sites));
        }

        @Override
        public Optional<String> grpcAddress(String site) {
            return Optional.of(site + ":7410");
        }

        @Override
        public List<String> others() {
            return List.copyOf(listed);
        }

        @Override
        public CompletableFuture<Void> relist() {
            relists++;
            listed.addAll(registering);
            registering.clear();
            return CompletableFuture.completedFuture(null);
        }
    }

    /** A session whose recordings of sync sites complete, or fail, when told. */
    private static final class RecordingSession implements ImageSession {
        final List<Set<String>> recorded = new ArrayList<>();
        private final ImageInfo info;
        private final List<CompletableFuture<Void>> pending = new ArrayList<>();

        RecordingSession(ImageInfo info) {
            this.info = info;
        }

        void recordAll() {
            pending.forEach(recording -> recording.complete(null));
            pending.clear();
        }

        void refuseAll() {
            pending.forEach(recording -> recording.completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "the controller did not answer")));
            pending.clear();
        }

        @Override
        public CompletableFuture<Void> recordSyncSites(Set<String> sites) {
            recorded.add(sites);
            CompletableFuture<Void> recording = new CompletableFuture<>();
            pending.add(recording);
            return recording;
        }

        @Override
        public ImageInfo info() {
            return info;
        }

        @Override
        public long epoch() {
            return 1;
        }

        @Override
        public long nextEpoch() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void checkCurrent() {}

        @Override
        public SortedMap<Long, GlobalBlock> stale(long first, long count) {
            return Collections.emptySortedMap();
        }

        @Override
        public void wrote(long first, long count) {}

        @Override
        public void fetched(GlobalBlock block) {}

        @Override
        public void close() {}
    }

    /** Records pushes and answers them when told: every copy stored, except at the failing sites; pings answer at once, but from failing sites. */
    private static final class RecordingPeers extends AbstractTestingPeers {
        final Map<String, List<Copy>> pushed = new TreeMap<>();
        final Set<String> failing = new HashSet<>();
        /** Sites that answer every push with "not held". */
        final Set<String> refusing = new HashSet<>();
        private final List<Runnable> answers = new ArrayList<>();

        RecordingPeers(String... failing) {
            this.failing.addAll(List.of(failing));
        }

        void answerAll() {
            List<Runnable> now = new ArrayList<>(answers);
            answers.clear();
            now.forEach(Runnable::run);
        }

        @Override
        public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
            pushed.put(site, copies);
            CompletableFuture<boolean[]> answer = new CompletableFuture<>();
            answers.add(() -> {
                if (failing.contains(site)) {
                    answer.completeExceptionally(down(site));
                } else {
                    boolean[] stored = new boolean[copies.size()];
                    Arrays.fill(stored, !refusing.contains(site));
                    answer.complete(stored);
                }
            });
            return answer;
        }

        @Override
        public CompletableFuture<Duration> ping(String site) {
            return failing.contains(site) ? CompletableFuture.failedFuture(down(site)) : CompletableFuture.completedFuture(Duration.ofMillis(1));
        }

        private static HeliotropeException down(String site) {
            return new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, site + " is down");
        }
    }
}
