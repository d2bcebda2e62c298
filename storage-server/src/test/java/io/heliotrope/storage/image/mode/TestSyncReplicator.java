package io.heliotrope.storage.image.mode;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.WanWaits;
import io.heliotrope.storage.view.WanWaits.Cause;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class TestSyncReplicator {
    private final RecordingSession session = new RecordingSession(new ImageInfo(1, "disk", 64 * BLOCK_SIZE, Instant.EPOCH, UUID.randomUUID()));

    @Test
    void aWriteIsAcknowledgedOnceTheFirstSitesHoldEveryBlockOfIt() {
        RecordingPeers peers = new RecordingPeers(Set.of());
        ByteBuffer data = ByteBuffer.allocate(2 * BLOCK_SIZE);
        data.put(BLOCK_SIZE, (byte) 9);

        List<Cause> waits = new ArrayList<>();
        CompletableFuture<Void> ack = new SyncReplicator(peers, session, List.of("b", "c", "d"), 2, (cause, nanos) -> waits.add(cause)).wrote(4, 2, 77, data);

        assertThat(ack).isNotDone();
        peers.answerAll();
        assertThat(ack).isNotDone();
        assertThat(waits).as("the write still waits for its record").isEmpty();
        session.recordAll();
        assertThat(ack).isCompleted();
        assertThat(waits).as("one wait on the WAN, the write's").containsExactly(Cause.SYNC);
        assertThat(session.recorded).containsExactly(Set.of("b", "c"));
        assertThat(peers.pushed).containsOnlyKeys("b", "c");
        assertThat(peers.pushed.get("b")).extracting(Copy::block, Copy::version).containsExactly(
                tuple(4L, 77L), tuple(5L, 77L));
        assertThat(peers.pushed.get("c").get(1).data().get(0)).isEqualTo((byte) 9);
    }

    @Test
    void aSiteThatFailsIsReplacedByTheNextAndZeroMarkersTravelWithoutData() {
        RecordingPeers peers = new RecordingPeers(Set.of("b"));

        SyncReplicator replicator = new SyncReplicator(peers, session, List.of("b", "c"), 1, WanWaits.NONE);
        CompletableFuture<Void> ack = replicator.wrote(3, 1, 5, null);
        peers.answerAll();
        peers.answerAll();
        session.recordAll();

        assertThat(ack).isCompleted();
        assertThat(peers.pushed).containsOnlyKeys("b", "c");
        assertThat(peers.pushed.get("c")).singleElement().satisfies(copy -> assertThat(copy.zero()).isTrue());
        // The replacement sticks, and its set was recorded before the write was acknowledged.
        assertThat(session.recorded).containsExactly(Set.of("b"), Set.of("c"));
        peers.pushed.clear();
        CompletableFuture<Void> next = replicator.wrote(4, 1, 6, null);
        peers.answerAll();
        assertThat(next).isCompleted();
        assertThat(peers.pushed).containsOnlyKeys("c");
        assertThat(session.recorded).hasSize(2);
    }

    @Test
    void aWriteWhoseSitesTheControllerDidNotRecordFailsAndTheNextAsksAgain() {
        RecordingPeers peers = new RecordingPeers(Set.of());
        SyncReplicator replicator = new SyncReplicator(peers, session, List.of("b"), 1, WanWaits.NONE);

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
        RecordingPeers peers = new RecordingPeers(Set.of());
        peers.refusing.add("b");

        CompletableFuture<Void> ack = new SyncReplicator(peers, session, List.of("b", "c"), 1, WanWaits.NONE).wrote(0, 1, 5, null);
        peers.answerAll();
        peers.answerAll();
        session.recordAll();

        assertThat(ack).isCompleted();
        assertThat(peers.pushed).containsOnlyKeys("b", "c");
    }

    @Test
    void tooFewReachableSitesFailTheWrite() {
        RecordingPeers peers = new RecordingPeers(Set.of("b"));

        CompletableFuture<Void> ack = new SyncReplicator(peers, session, List.of("b", "c"), 2, WanWaits.NONE).wrote(3, 1, 5, ByteBuffer.allocate(BLOCK_SIZE));
        peers.answerAll();

        assertThatThrownBy(ack::join).cause().isInstanceOfSatisfying(HeliotropeException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                .hasMessage("image 'disk': the write at block 3 is stored here, but fewer than the 2 other sites its sync mode needs took a copy (sites: [b, c])");
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

    /** Records pushes and answers them when told: every copy stored, except at the failing sites. */
    private static final class RecordingPeers extends AbstractTestingPeers {
        final Map<String, List<Copy>> pushed = new TreeMap<>();
        private final Set<String> failing;
        /** Sites that answer every push with "not held". */
        final Set<String> refusing = new HashSet<>();
        private final List<Runnable> answers = new ArrayList<>();

        RecordingPeers(Set<String> failing) {
            this.failing = failing;
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
                    answer.completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, site + " is down"));
                } else {
                    boolean[] stored = new boolean[copies.size()];
                    Arrays.fill(stored, !refusing.contains(site));
                    answer.complete(stored);
                }
            });
            return answer;
        }
    }
}
