package io.heliotrope.storage.image.mode;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class TestSyncPushes {
    private final HeldPeers peers = new HeldPeers();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final SyncPushes pushes = new SyncPushes(peers, new ImageRef(UUID.randomUUID(), "disk", 1 << 20),
            new SyncMetrics(registry, List::of));

    @Test
    void aWriteGoesAtOnceWhileFewPushesAreUnderWayAndTheOthersGoTogetherWhenOneEnds() {
        List<CompletableFuture<boolean[]>> answers = new ArrayList<>();
        for (int i = 0; i < SyncPushes.IN_FLIGHT + 3; i++) {
            answers.add(pushes.push("b", copies(10L * i, 2, 7)));
        }

        assertThat(peers.calls).as("one push per write while there is room").hasSize(SyncPushes.IN_FLIGHT);
        peers.answer(0, true);
        assertThat(answers.get(0).join()).containsExactly(true, true);
        assertThat(peers.calls).hasSize(SyncPushes.IN_FLIGHT + 1);
        assertThat(peers.calls.get(SyncPushes.IN_FLIGHT).copies()).as("the three writes that waited, in one push").hasSize(6);
        peers.answer(SyncPushes.IN_FLIGHT, true);
        for (int i = SyncPushes.IN_FLIGHT; i < answers.size(); i++) {
            assertThat(answers.get(i).join()).containsExactly(true, true);
        }
        assertThat(registry.get("heliotrope.sync.pushes").counter().count()).isEqualTo(SyncPushes.IN_FLIGHT + 1);
    }

    @Test
    void aBlockTwoWaitingWritesHoldGoesOnceAtItsNewestVersionAndBothAreAnswered() {
        for (int i = 0; i < SyncPushes.IN_FLIGHT; i++) {
            pushes.push("b", copies(100L + i, 1, 1));
        }
        CompletableFuture<boolean[]> older = pushes.push("b", copies(5, 2, 8));
        CompletableFuture<boolean[]> newer = pushes.push("b", copies(6, 2, 9));

        peers.answer(0, true);
        assertThat(peers.calls.get(SyncPushes.IN_FLIGHT).copies()).extracting(Copy::block, Copy::version)
                .containsExactly(tuple(5L, 8L), tuple(6L, 9L), tuple(7L, 9L));
        peers.answer(SyncPushes.IN_FLIGHT, true);
        assertThat(older.join()).containsExactly(true, true);
        assertThat(newer.join()).containsExactly(true, true);
    }

    @Test
    void aFailedPushFailsEveryWriteItCarriedAndTheNextWritesStillGo() {
        for (int i = 0; i < SyncPushes.IN_FLIGHT; i++) {
            pushes.push("b", copies(i, 1, 1));
        }
        CompletableFuture<boolean[]> first = pushes.push("b", copies(20, 1, 2));
        CompletableFuture<boolean[]> second = pushes.push("b", copies(30, 1, 2));

        peers.answer(0, true);
        peers.fail(SyncPushes.IN_FLIGHT);
        assertThat(first).isCompletedExceptionally();
        assertThat(second).isCompletedExceptionally();
        CompletableFuture<boolean[]> after = pushes.push("b", copies(40, 1, 3));
        assertThat(peers.calls).as("room again").hasSize(SyncPushes.IN_FLIGHT + 2);
        peers.answer(SyncPushes.IN_FLIGHT + 1, false);
        assertThat(after.join()).containsExactly(false);
    }

    @Test
    void sitesHaveTheirOwnRoom() {
        for (int i = 0; i < SyncPushes.IN_FLIGHT; i++) {
            pushes.push("b", copies(i, 1, 1));
        }
        pushes.push("c", copies(0, 1, 1));

        assertThat(peers.calls).extracting(Call::site).containsOnly("b", "c").hasSize(SyncPushes.IN_FLIGHT + 1);
    }

    private static List<Copy> copies(long first, int count, long version) {
        return LongStream.range(first, first + count).mapToObj(block -> new Copy(block, version, null)).toList();
    }

    private record Call(String site, List<Copy> copies, CompletableFuture<boolean[]> answer) {}

    /** Holds every push until answered by its index. */
    private static final class HeldPeers extends AbstractTestingPeers {
        final List<Call> calls = new ArrayList<>();

        @Override
        public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
            Call call = new Call(site, copies, new CompletableFuture<>());
            calls.add(call);
            return call.answer();
        }

        void answer(int index, boolean held) {
            Call call = calls.get(index);
            boolean[] answer = new boolean[call.copies().size()];
            Arrays.fill(answer, held);
            call.answer().complete(answer);
        }

        void fail(int index) {
            calls.get(index).answer().completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "b is down"));
        }
    }
}
