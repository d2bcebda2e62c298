package io.heliotrope.storage.propagation;

import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.Replication.Mode;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.propagation.PropagationManager.Backlog;
import io.heliotrope.storage.propagation.TestingPeers.Pushed;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

class TestPropagationManager {
    private static final String HERE = "us-east";
    private static final String THERE = "us-west";
    private static final Map<String, Double> TO_THERE = Map.of(THERE, 1.0);
    private static final long DATA_COPY = BLOCK_SIZE + Pusher.COPY_HEADER_BYTES;

    private final TestingScheduler scheduler = new TestingScheduler(Instant.parse("2024-03-01T22:00:00Z"));
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final TestingPeers peers = new TestingPeers(scheduler);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PropagationMetrics metrics = new PropagationMetrics(registry);
    private final ImageInfo image = store.createImage("disk", 64 * BLOCK_SIZE, UUID.randomUUID());
    private PropagationManager manager = manager(PropagationConfig.DEFAULT);
    private long lastVersion;

    @AfterEach
    void close() {
        manager.close();
        store.close();
    }

    @Test
    void pushesTheHighestPriorityFirstToTheSiteTheRowNames() {
        manager = manager(new PropagationConfig(1, 1, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), 1000));
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 1, TO_THERE));
        long[] versions = {0, write(1, 11), write(2, 22), write(3, 33), write(4, 44)};
        propagation.recordRead(1, 2);
        read(propagation, 2, 4);
        read(propagation, 4, 2);
        propagation.recordWrite(1, 4);

        scheduler.advance(Duration.ofSeconds(1));

        // Priorities 1001, 5005, -1 (never read: not pushed) and 2002.
        assertThat(peers.pushes()).extracting(push -> push.copies().get(0)).containsExactly(
                new Pushed(2, versions[2], false, (byte) 22), new Pushed(4, versions[4], false, (byte) 44), new Pushed(1, versions[1], false, (byte) 11));
        assertThat(peers.pushes()).allSatisfy(push -> {
            assertThat(push.site()).isEqualTo(THERE);
            assertThat(push.image()).isEqualTo(new ImageRef(image.identity(), "disk", image.sizeBytes()));
        });
        assertThat(propagation.queued()).isEqualTo(1);
        assertThat(counter("pushed.blocks")).isEqualTo(3);
        assertThat(counter("pushed.bytes")).isEqualTo(3 * DATA_COPY);
    }

    @Test
    void pushesTheVersionStoredWhenItPushesAndZeroMarkersWithoutData() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        write(1, 1);
        propagation.recordWrite(1, 1);
        long newer = write(1, 7);
        propagation.recordWrite(1, 1);
        long zeroed = ++lastVersion;
        store.zeroBlocks(image.id(), new long[] {2}, zeroed, Dirty.SKIP, false);
        // A zero of a block never written leaves it unwritten: nothing to push.
        propagation.recordWrite(2, 2);

        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).singleElement().satisfies(push -> {
            assertThat(push.copies()).containsExactlyInAnyOrder(new Pushed(1, newer, false, (byte) 7), new Pushed(2, zeroed, true, (byte) 0));
            assertThat(push.bytes()).isEqualTo(DATA_COPY + Pusher.COPY_HEADER_BYTES);
        });
        assertThat(counter("pushed.bytes")).isEqualTo(DATA_COPY + Pusher.COPY_HEADER_BYTES);
    }

    @Test
    void aCopyTheGuardHoldsBackGoesOnceItIsAllowed() {
        boolean[] committed = {false};
        ImagePropagation propagation = manager.open(image, (copy, site) -> copy.block() != 3 || committed[0], replication(1000, 0, TO_THERE));
        long held = write(3, 9);
        long free = write(4, 8);
        propagation.recordWrite(3, 2);

        scheduler.advance(Duration.ofMillis(500));
        assertThat(peers.pushes()).singleElement().satisfies(push -> assertThat(push.copies()).containsExactly(new Pushed(4, free, false, (byte) 8)));

        committed[0] = true;
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(peers.pushes()).hasSize(2);
        assertThat(peers.pushes().get(1).copies()).containsExactly(new Pushed(3, held, false, (byte) 9));
        assertThat(propagation.queued()).isZero();
    }

    @Test
    void aBlockWrittenWhileItsPushIsUnderWayIsPushedAgainAtItsNewVersion() {
        manager = manager(new PropagationConfig(256, 1, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), 1000));
        peers.link(Duration.ofMillis(75), 125_000_000);
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        long first = write(5, 1);
        propagation.recordWrite(5, 1);
        scheduler.runDue();
        assertThat(peers.pushes()).hasSize(1);

        long second = write(5, 2);
        propagation.recordWrite(5, 1);
        scheduler.advance(Duration.ofMillis(70));
        assertThat(propagation.queued()).isEqualTo(1);
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).extracting(push -> push.copies().get(0))
                .containsExactly(new Pushed(5, first, false, (byte) 1), new Pushed(5, second, false, (byte) 2));
        assertThat(propagation.queued()).isZero();
    }

    @Test
    void aFailedPushPutsItsBlocksBackAndPushesThereWaitLongerEachTimeWithJitter() {
        peers.fail(THERE, true);
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        write(1, 1);
        propagation.recordWrite(1, 1);

        scheduler.advance(Duration.ofSeconds(20));
        assertThat(counter("failed.pushes")).isEqualTo(peers.failedAt().size());
        assertThat(propagation.queued()).isEqualTo(1);
        // The n-th wait is drawn from [c/2, c], c = min(5 s, 200 ms * 2^(n-1)); one push goes after each (a trial).
        List<Long> at = peers.failedAt();
        assertThat(at).hasSizeBetween(8, 12);
        Set<Long> waits = new HashSet<>();
        for (int n = 1; n < at.size(); n++) {
            long ceiling = Math.min(5000, 200L << (n - 1));
            long wait = at.get(n) - at.get(n - 1);
            assertThat(wait).as("wait %d", n).isBetween(ceiling / 2, ceiling);
            waits.add(wait);
        }
        assertThat(waits).as("jittered").hasSizeGreaterThan(1);

        peers.fail(THERE, false);
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(peers.pushes()).hasSize(1);
        assertThat(propagation.queued()).isZero();
        // A few tasks per pause while waiting, never a spin.
        assertThat(scheduler.ran()).isLessThan(25_000 / 100 * 3);
    }

    @Test
    void aSiteCutOffGetsNoMoreThanThePushesUnderWayWhichLandOnceAtTheHealAndThenEveryPushResumes() {
        ImagePropagation propagation = writtenWithThereCutOff(2, Duration.ofMinutes(2), 8);

        scheduler.advance(Duration.ofSeconds(60));
        assertThat(counter("pushed.bytes")).as("sent: the two pushes under way at the cut, nothing after").isEqualTo(2 * DATA_COPY);
        assertThat(counter("late.pushes")).isEqualTo(2);
        assertThat(counter("failed.pushes")).isZero();
        assertThat(propagation.queued()).isEqualTo(6);

        peers.heal(THERE);
        scheduler.advance(Duration.ofMillis(100));

        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies).extracting(Pushed::block)
                .as("every block once").containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(propagation.queued()).isZero();
    }

    @Test
    void aPushUnansweredPastItsDeadlineFailsAndItsBlocksGoAgainAfterTheHealAndAClosedImageDrainsOnlyThen() {
        ImagePropagation propagation = writtenWithThereCutOff(1, Duration.ofSeconds(10), 2);
        propagation.close();

        scheduler.advance(Duration.ofSeconds(60));
        // One push, late at 1 s and failed at 10 s; then a trial each 10 s deadline plus a wait of at most 5 s.
        assertThat(counter("pushed.bytes") / DATA_COPY).isBetween(4.0, 6.0);
        double sent = counter("pushed.bytes") / DATA_COPY;
        assertThat(counter("failed.pushes")).as("all but the one under way, if any").isBetween(sent - 1, sent);
        assertThat(manager.backlogs()).as("still draining").containsOnlyKeys("disk");

        peers.heal(THERE);
        // The push under way lands now; if none was, the next trial goes within the longest wait.
        scheduler.advance(Duration.ofSeconds(6));

        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies).extracting(Pushed::block).contains(0L, 1L);
        assertThat(manager.backlogs()).isEmpty();
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isZero();
    }

    @Test
    void drawingTheCurrentSiteWaitsAPauseRatherThanSpinning() {
        manager = manager(new PropagationConfig(1, 1, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), 1000));
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, Map.of(HERE, 0.9, THERE, 0.1)));
        writeAll(propagation, 64);

        scheduler.advance(Duration.ofSeconds(10));

        // About 100 pauses in 10 s, and a push for every 9 of them.
        assertThat(peers.pushes()).hasSizeBetween(3, 30).allSatisfy(push -> assertThat(push.site()).isEqualTo(THERE));
        assertThat(scheduler.ran()).isLessThan(250);
    }

    @Test
    void anEmptyRowOrOneWithTheCurrentSiteAlonePushesNothingUntilTheTableChanges() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, Map.of()));
        writeAll(propagation, 8);
        scheduler.advance(Duration.ofSeconds(10));
        propagation.update(replication(1000, 0, Map.of(HERE, 1.0)));
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(peers.pushes()).isEmpty();
        assertThat(scheduler.ran()).isLessThan(5);

        propagation.update(replication(1000, 0, TO_THERE));
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies).hasSize(8);
    }

    @Test
    void modeAndSChangeAtRunTime() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, new Replication(Mode.ON_DEMAND, 1000, 0, HERE, 1, 0, 0, 0, Map.of(HERE, TO_THERE), false));
        writeAll(propagation, 4);
        scheduler.advance(Duration.ofSeconds(1));
        // Written once, never read: fr/fw = 0 is below S = 0.5.
        propagation.update(replication(1000, 0.5, TO_THERE));
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(peers.pushes()).isEmpty();

        propagation.update(replication(1000, 0, TO_THERE));
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies).hasSize(4);
    }

    @Test
    void theBudgetStopsPushesForTheDayAndTheyResumeAfterMidnightUtc() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, 0, 3 * DATA_COPY, TO_THERE));
        writeAll(propagation, 5);

        scheduler.advance(Duration.ofHours(1));
        assertThat(counter("pushed.blocks")).isEqualTo(3);
        assertThat(propagation.queued()).isEqualTo(2);

        scheduler.advance(Duration.ofHours(1));
        assertThat(counter("pushed.blocks")).isEqualTo(5);
        assertThat(peers.pushes().get(1).millis()).isEqualTo(Instant.parse("2024-03-02T00:00:00Z").toEpochMilli());
    }

    @Test
    void countsCopiesTheDestinationRefused() {
        peers.refuse(2);
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        writeAll(propagation, 3);

        scheduler.advance(Duration.ofSeconds(1));

        assertThat(counter("pushed.blocks")).isEqualTo(3);
        assertThat(counter("refused.blocks")).isEqualTo(1);
    }

    @Test
    void theBlocksStillQueuedAtTheClosePushAfterItThenThePropagationEnds() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        writeAll(propagation, 3);
        // The client wrote and went away before the pusher took a block.
        propagation.close();
        write(3, 3);
        propagation.recordWrite(3, 1);
        assertThat(manager.backlogs()).as("closed, still to push").containsOnlyKeys("disk");

        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies).extracting(Pushed::block).containsExactlyInAnyOrder(0L, 1L, 2L);
        assertThat(manager.backlogs()).isEmpty();
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isZero();
    }

    @Test
    void aPushThatFailsAfterTheCloseGoesAgainAfterTheBackoff() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        peers.fail(THERE, true);
        writeAll(propagation, 2);
        propagation.close();
        scheduler.runDue();
        assertThat(peers.pushes()).as("the push failed").isEmpty();
        assertThat(manager.backlogs()).as("its blocks queued again").containsOnlyKeys("disk");
        peers.fail(THERE, false);

        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies).extracting(Pushed::block).containsExactlyInAnyOrder(0L, 1L);
        assertThat(manager.backlogs()).isEmpty();
    }

    @Test
    void afterTheCloseACopyTheGuardHoldsBackIsDroppedAndOneHeldBackBeforeGoesOnceAllowed() {
        boolean[] committed = {false};
        ImagePropagation propagation = manager.open(image, (copy, site) -> copy.block() == 4 || copy.block() == 3 && committed[0],
                replication(1000, 0, TO_THERE));
        long held = write(3, 9);
        long free = write(4, 8);
        propagation.recordWrite(3, 2);
        scheduler.advance(Duration.ofMillis(500));
        // The close's flush commits block 3; block 5, written last, never is.
        write(5, 5);
        propagation.recordWrite(5, 1);
        committed[0] = true;
        propagation.close();

        scheduler.advance(Duration.ofSeconds(5));

        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies)
                .containsExactlyInAnyOrder(new Pushed(4, free, false, (byte) 8), new Pushed(3, held, false, (byte) 9));
        assertThat(manager.backlogs()).isEmpty();
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isZero();
    }

    @Test
    void aHeatRequestStopsTheDrainToTheAskingSite() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, Map.of(THERE, 0.5, "eu-west", 0.5)));
        writeAll(propagation, 16);
        propagation.close();

        manager.yield(ImageRef.of(image), THERE);
        manager.yield(new ImageRef(UUID.randomUUID(), "disk", image.sizeBytes()), "eu-west");
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).as("another image's heat was asked from eu-west").isNotEmpty()
                .allSatisfy(push -> assertThat(push.site()).isEqualTo("eu-west"));
        assertThat(peers.pushes()).flatExtracting(TestingPeers.Push::copies).hasSize(16);
        assertThat(manager.backlogs()).isEmpty();
    }

    @Test
    void aDrainWithNoSiteLeftEndsAndAnOpenImageKeepsPushingToTheSiteThatAsked() {
        ImagePropagation closed = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        writeAll(closed, 4);
        closed.close();
        ImageInfo openImage = store.createImage("open", 64 * BLOCK_SIZE, UUID.randomUUID());
        ImagePropagation open = manager.open(openImage, PushGuard.NONE, replication(1000, 0, TO_THERE));

        manager.yield(ImageRef.of(image), THERE);
        manager.yield(ImageRef.of(openImage), THERE);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(peers.pushes()).isEmpty();
        assertThat(manager.backlogs()).isEmpty();
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isZero();

        store.write(openImage.id(), 0, ByteBuffer.allocate(BLOCK_SIZE), ++lastVersion, Dirty.SKIP, false);
        open.recordWrite(0, 1);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(peers.pushes()).singleElement().satisfies(push -> assertThat(push.image().name()).isEqualTo("open"));
    }

    @Test
    void closingAnImageWithNothingToPushEndsItsPropagation() {
        // S = 1: blocks never read would wait for reads, which no longer come.
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 1, TO_THERE));
        writeAll(propagation, 3);
        propagation.close();

        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).isEmpty();
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isZero();
    }

    @Test
    void closingTheManagerStopsThePushesOfImagesOpenAndClosedAndEmptiesTheQueues() {
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        ImagePropagation other = manager.open(store.createImage("other", 8 * BLOCK_SIZE), PushGuard.NONE, replication(1000, 0, TO_THERE));
        writeAll(propagation, 3);
        other.recordWrite(0, 2);
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isEqualTo(5);

        propagation.close();
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isEqualTo(5);
        manager.close();
        other.recordWrite(2, 2);
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(peers.pushes()).isEmpty();
        assertThat(manager.backlogs()).isEmpty();
        assertThat(registry.get("heliotrope.propagation.queue").gauge().value()).isZero();
    }

    @Test
    void theBacklogCountsTheBlocksWaitingAndHowLongTheFirstQueuedHasWaited() {
        // S = 1: a block never read waits for reads.
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 1, TO_THERE));
        write(1, 1);
        write(2, 2);
        propagation.recordWrite(1, 1);
        scheduler.advance(Duration.ofSeconds(3));
        propagation.recordWrite(2, 1);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(manager.backlogs()).containsExactly(entry("disk", new Backlog(2, Duration.ofSeconds(5))));

        // A read lets block 1 go: block 2 has waited 3 s since it was queued.
        propagation.recordRead(1, 1);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(peers.pushes()).hasSize(1);
        assertThat(manager.backlogs()).containsExactly(entry("disk", new Backlog(1, Duration.ofSeconds(3))));

        propagation.recordRead(2, 1);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(manager.backlogs()).isEmpty();
    }

    @Test
    void anImageThatIsNotPushedHasNoBacklog() {
        ImagePropagation onDemand = manager.open(image, PushGuard.NONE, replication(1000, 1, TO_THERE).withMode(Mode.ON_DEMAND));
        writeAll(onDemand, 4);
        ImagePropagation nowhereToGo = manager.open(store.createImage("other", 64 * BLOCK_SIZE, UUID.randomUUID()), PushGuard.NONE,
                replication(1000, 1, Map.of()));
        writeAll(nowhereToGo, 4);

        assertThat(onDemand.queued()).isEqualTo(4);
        assertThat(manager.backlogs()).isEmpty();
    }

    /** An image that pushes a block a push, late after 1 s, with {@code blocks} written once {@link #THERE} was cut off. */
    private ImagePropagation writtenWithThereCutOff(int pushesInFlight, Duration pushDeadline, int blocks) {
        manager = manager(new PropagationConfig(1, pushesInFlight, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(5), 1000,
                Duration.ofSeconds(1), pushDeadline));
        ImagePropagation propagation = manager.open(image, PushGuard.NONE, replication(1000, 0, TO_THERE));
        peers.cut(THERE);
        writeAll(propagation, blocks);
        return propagation;
    }

    private PropagationManager manager(PropagationConfig config) {
        return new PropagationManager(HERE, store, peers, scheduler, scheduler, scheduler.clock(), new SplittableRandom(1), config, metrics);
    }

    private static Replication replication(double k, double s, Map<String, Double> row) {
        return replication(k, s, 0, 0, row);
    }

    private static Replication replication(double k, double s, long cap, long budget, Map<String, Double> row) {
        return new Replication(Mode.PROACTIVE, k, s, HERE, 1, 0, cap, budget, Map.of(HERE, row), false);
    }

    private double counter(String name) {
        return registry.get("heliotrope.propagation." + name).tag("destination", THERE).counter().count();
    }

    /** Stores a block of data filled with {@code fill} at a new version, and returns the version. */
    private long write(long block, int fill) {
        ByteBuffer data = ByteBuffer.allocate(BLOCK_SIZE);
        while (data.hasRemaining()) {
            data.put((byte) fill);
        }
        store.write(image.id(), block, data.flip(), ++lastVersion, Dirty.SKIP, false);
        return lastVersion;
    }

    private void writeAll(ImagePropagation propagation, int blocks) {
        for (int block = 0; block < blocks; block++) {
            write(block, block);
        }
        propagation.recordWrite(0, blocks);
    }

    private static void read(ImagePropagation propagation, long block, int times) {
        for (int i = 0; i < times; i++) {
            propagation.recordRead(block, 1);
        }
    }
}
