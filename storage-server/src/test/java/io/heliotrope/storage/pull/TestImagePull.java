package io.heliotrope.storage.pull;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.heat.Heat;
import io.heliotrope.storage.heat.HeatSource;
import io.heliotrope.storage.propagation.TestingScheduler;
import io.heliotrope.storage.pull.PullStatus.State;
import io.heliotrope.storage.view.Background;
import io.heliotrope.storage.view.IoGate;
import io.heliotrope.storage.view.PullTarget;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

class TestImagePull {
    private final TestingScheduler scheduler = new TestingScheduler(Instant.parse("2026-11-28T10:00:00Z"));
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TestingTarget target = new TestingTarget();
    private final List<Long> heatAsked = new ArrayList<>();
    private final CompletableFuture<List<Heat>> heat = new CompletableFuture<>();
    private final HeatSource heatSource = (image, holderEpoch, maxBlocks) -> {
        heatAsked.add(holderEpoch);
        return heat;
    };
    private final PullManager pulls = new PullManager(heatSource, scheduler, scheduler.clock(), PullConfig.DEFAULT, PullOrder.HEAT, registry);

    @Test
    void waitsInStandbyAndStartsWhenTheGateOpens() {
        IoGate gate = IoGate.standby();
        TestingSession session = new TestingSession(4096, gate).elsewhere(0, 100, "a");
        pulls.open(session, target);
        scheduler.runDue();

        assertThat(state()).isEqualTo(State.WAITING);
        assertThat(target.asked()).isEmpty();

        gate.release();
        scheduler.runDue();

        assertThat(state()).isEqualTo(State.RUNNING);
        assertThat(heatAsked).containsExactly(5L);
        assertThat(pulls.statuses()).extracting(PullStatus::lackedBlocks).containsExactly(100L);
    }

    @Test
    void itsOwnMissesGoFirstAndTheRestWaitsForTheHeatAtMostHalfASecond() {
        TestingSession session = new TestingSession(4096, IoGate.opened()).elsewhere(0, 100, "a");
        pulls.open(session, target).missed(List.of(new GlobalBlock(40, 3, "a")));
        scheduler.runDue();

        assertThat(target.asked()).containsExactlyElementsOf(range(32, 48));

        target.completeAll(session);
        scheduler.advance(Duration.ofMillis(499));
        assertThat(target.asked()).hasSize(16);
        scheduler.advance(Duration.ofMillis(1));
        assertThat(target.asked()).hasSizeGreaterThan(16).contains(0L);
    }

    @Test
    void pullsEverythingElsewhereThenIsDoneAndCountsIt() {
        TestingSession session = new TestingSession(4096, IoGate.opened()).elsewhere(0, 1000, "a").elsewhere(2000, 10, "b").zero(3000);
        target.autoComplete(session);
        pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();

        assertThat(session.elsewhereBlocks()).isZero();
        assertThat(target.asked()).hasSize(1010).doesNotHaveDuplicates().doesNotContain(3000L);
        assertThat(state()).isEqualTo(State.DONE);
        assertThat(pulls.statuses()).extracting(PullStatus::pulledBytes).containsExactly(1010L * BLOCK_SIZE);
        assertThat(registry.get("heliotrope.pull.blocks").tag("peer", "a").counter().count()).isEqualTo(1000);
        assertThat(registry.get("heliotrope.pull.bytes").tag("peer", "b").counter().count()).isEqualTo(10 * BLOCK_SIZE);
        assertThat(registry.get("heliotrope.pull.elsewhere.blocks").gauge().value()).isZero();
        assertThat(registry.get("heliotrope.pull.lacked.blocks").gauge().value()).isEqualTo(1010);
        assertThat(registry.get("heliotrope.pull.running").gauge().value()).isZero();
    }

    @Test
    void aBlockWrittenHereMeanwhileIsNotAsked() {
        TestingSession session = new TestingSession(4096, IoGate.opened()).elsewhere(0, 2000, "a");
        pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();
        long firstAsked = target.asked().size();
        assertThat(firstAsked).as("the start window's worth").isBetween(200L, 300L);

        session.wrote(firstAsked, 100);
        target.completeAll(session);
        scheduler.runDue();

        assertThat(target.asked()).doesNotContainAnyElementsOf(range(firstAsked, firstAsked + 100)).contains(firstAsked + 100);
    }

    @Test
    void aBlockAClientIsFetchingIsLeftToThatFetch() {
        TestingSession session = new TestingSession(4096, IoGate.opened()).elsewhere(0, 2000, "a");
        target.fetching(range(0, 50));
        pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();

        assertThat(target.asked()).isNotEmpty().doesNotContainAnyElementsOf(range(0, 50));
    }

    @Test
    void stopsAtOnceWhenItsSessionIsFenced() {
        TestingSession session = running(4096);
        session.fenced = true;
        assertStopsAfterWhatIsUnderWay(session);
        assertThat(state()).isEqualTo(State.STOPPED);
    }

    @Test
    void stopsAtOnceWhenTheHoldingChanges() {
        TestingSession session = running(4096);
        session.holding = 9;
        assertStopsAfterWhatIsUnderWay(session);
        assertThat(state()).isEqualTo(State.STOPPED);
    }

    @Test
    void stopsAtOnceWhenStoppedAndIsForgotten() {
        TestingSession session = new TestingSession(4096, IoGate.opened()).elsewhere(0, 4096, "a");
        Background pull = pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();
        pull.stop();
        pull.stop();

        assertStopsAfterWhatIsUnderWay(session);
        assertThat(pulls.statuses()).isEmpty();
        assertThat(registry.get("heliotrope.pull.elsewhere.blocks").gauge().value()).isZero();
    }

    @Test
    void stopsAtOnceWhenTheGateEnds() {
        IoGate gate = IoGate.opened();
        TestingSession session = new TestingSession(4096, gate).elsewhere(0, 2000, "a");
        pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();
        gate.end(new HeliotropeException(ErrorCode.STALE_LEASE, "ended"));

        assertStopsAfterWhatIsUnderWay(session);
        assertThat(state()).isEqualTo(State.STOPPED);
    }

    @Test
    void aHeldGateStopsItAndItStartsAfreshOnceTheGateOpensAgain() {
        IoGate gate = IoGate.opened();
        TestingSession session = new TestingSession(4096, gate).elsewhere(0, 2000, "a");
        pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();
        gate.hold();

        assertStopsAfterWhatIsUnderWay(session);
        assertThat(state()).isEqualTo(State.STOPPED);

        session.holding = 7;
        gate.release();
        scheduler.runDue();
        assertThat(state()).isEqualTo(State.RUNNING);
        assertThat(heatAsked).containsExactly(5L, 7L);
        assertThat(target.pending()).isPositive();
    }

    @Test
    void stopsWhenTurnedOffAndStartsWhenTurnedOn() {
        TestingSession session = running(4096);
        pulls.refresh(name -> session.replication.withPull(false));
        assertStopsAfterWhatIsUnderWay(session);
        assertThat(state()).isEqualTo(State.OFF);

        pulls.refresh(name -> session.replication);
        scheduler.runDue();
        assertThat(state()).isEqualTo(State.RUNNING);
        assertThat(target.pending()).isPositive();
    }

    @Test
    void anImageNotPulledIsOffFromTheStart() {
        TestingSession session = new TestingSession(4096, IoGate.opened()).elsewhere(0, 10, "a");
        session.replication = session.replication.withMode(Replication.Mode.ON_DEMAND).withPull(false);
        pulls.open(session, target);
        scheduler.runDue();

        assertThat(state()).isEqualTo(State.OFF);
        assertThat(target.asked()).isEmpty();
    }

    @Test
    void keepsToTheImagesCap() {
        TestingSession session = new TestingSession(100_000, IoGate.opened()).elsewhere(0, 100_000, "a");
        // 100 blocks a second
        session.replication = new Replication(Replication.Mode.PROACTIVE, 1000, 1, "a", 1, 0, 100 * PullWindow.BLOCK_BYTES, 0, java.util.Map.of(), true);
        target.autoComplete(session);
        pulls.open(session, target);
        heat.complete(List.of());

        scheduler.advance(Duration.ofSeconds(10));

        assertThat(target.asked().size()).isBetween(900, 1000);
    }

    @Test
    void aFailedBatchIsAskedAgainAfterABackoff() {
        TestingSession session = new TestingSession(4096, IoGate.opened()).elsewhere(0, 8, "a");
        pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();
        assertThat(target.asked()).hasSize(8);

        // The first wait is drawn from 100 to 200 ms.
        target.failAll();
        scheduler.advance(Duration.ofMillis(99));
        assertThat(target.asked()).hasSize(8);
        scheduler.advance(Duration.ofMillis(101));
        assertThat(target.asked()).hasSize(16);
        assertThat(state()).isEqualTo(State.RUNNING);
    }

    @Test
    void aHolderWhoseBatchesFailedIsAskedAgainWithinDoublingWaitsAndFromTheFirstAgainOnceABatchArrives() {
        TestingSession session = running(1 << 16);
        int asked = target.asked().size();

        // What is under way fails together, three times: waits of at most 200, 400 and 800 ms.
        for (int round = 0; round < 3; round++) {
            target.failAll();
            scheduler.advance(Duration.ofMillis(200L << round));
            assertThat(target.asked().size()).as("asked again after round %d", round).isGreaterThan(asked);
            asked = target.asked().size();
        }
        target.completeAll(session);
        scheduler.runDue();
        asked = target.asked().size();
        target.failAll();
        scheduler.advance(Duration.ofMillis(200));
        assertThat(target.asked().size()).as("a wait of 200 ms at most after the arrival").isGreaterThan(asked);
    }

    /** Completes the batches under way: nothing more is asked after them. */
    private void assertStopsAfterWhatIsUnderWay(TestingSession session) {
        scheduler.runDue();
        int asked = target.asked().size();
        target.completeAll(session);
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(target.asked()).hasSize(asked);
    }

    /** An image whose pull runs, with a window's worth of batches under way. */
    private TestingSession running(long blocks) {
        TestingSession session = new TestingSession(blocks, IoGate.opened()).elsewhere(0, blocks, "a");
        pulls.open(session, target);
        heat.complete(List.of());
        scheduler.runDue();
        assertThat(state()).isEqualTo(State.RUNNING);
        assertThat(target.pending()).isPositive();
        return session;
    }

    private State state() {
        return pulls.statuses().get(0).state();
    }

    private static List<Long> range(long from, long to) {
        return java.util.stream.LongStream.range(from, to).boxed().toList();
    }

    /** Records what is pulled; completes or fails it when the test says, or at once. */
    private static final class TestingTarget implements PullTarget {
        private final List<Long> asked = new ArrayList<>();
        /** Blocks a client's fetch brings. */
        private final java.util.Set<Long> fetching = new java.util.HashSet<>();
        private final List<Pulled> pending = new ArrayList<>();
        private TestingSession autoComplete;

        void autoComplete(TestingSession session) {
            autoComplete = session;
        }

        @Override
        public List<CompletableFuture<Void>> pull(List<GlobalBlock> blocks) {
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            for (GlobalBlock block : blocks) {
                asked.add(block.block());
                CompletableFuture<Void> future = new CompletableFuture<>();
                futures.add(future);
                pending.add(new Pulled(block, future));
            }
            if (autoComplete != null) {
                completeAll(autoComplete);
            }
            return futures;
        }

        @Override
        public boolean inFlight(GlobalBlock block) {
            return fetching.contains(block.block());
        }

        void fetching(List<Long> blocks) {
            fetching.addAll(blocks);
        }

        List<Long> asked() {
            return List.copyOf(asked);
        }

        int pending() {
            return pending.size();
        }

        void completeAll(TestingSession session) {
            List<Pulled> done = List.copyOf(pending);
            pending.clear();
            for (Pulled pulled : done) {
                session.fetched(pulled.block());
                pulled.future().complete(null);
            }
        }

        void failAll() {
            List<Pulled> failed = List.copyOf(pending);
            pending.clear();
            failed.forEach(pulled -> pulled.future().completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "down")));
        }

        private record Pulled(GlobalBlock block, CompletableFuture<Void> future) {}
    }
}
