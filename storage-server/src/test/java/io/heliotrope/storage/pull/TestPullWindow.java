package io.heliotrope.storage.pull;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.PriorityQueue;

import static io.heliotrope.storage.pull.PullWindow.BLOCK_BYTES;
import static org.assertj.core.api.Assertions.assertThat;

/** A pull's window over a simulated link ({@link TestingLink}): it fills the link and keeps its queue short. */
class TestPullWindow {
    private static final Duration RTT = Duration.ofMillis(75);
    private static final long GBIT = 1_000_000_000;
    private static final long TARGET = PullConfig.DEFAULT.target().toNanos();
    /** What a batch holds: about 8 ms of what the path delivers. */
    private static final long BATCH = Duration.ofMillis(8).toNanos();

    @Test
    void reachesTheRateOfAGigabitLinkWithinSecondsAndKeepsItsQueueShort() {
        Simulation simulation = new Simulation(new TestingLink(RTT, GBIT));
        simulation.run(Duration.ofSeconds(3));
        Simulation.Sample steady = simulation.run(Duration.ofSeconds(2));

        assertThat(steady.pulled()).isGreaterThan(simulation.link.capacity(Duration.ofSeconds(2)) * 9 / 10);
        assertThat(steady.longestQueue()).isLessThanOrEqualTo(TARGET + 2 * BATCH);
        // The bandwidth-delay product (9.4 MB) and the target's worth (6.25 MB).
        assertThat(simulation.window.window()).isBetween(9_000_000L, 17_500_000L);
    }

    @Test
    void isAtTheLinkRateWithinTwoSecondsOfTheStart() {
        Simulation simulation = new Simulation(new TestingLink(RTT, GBIT));
        simulation.run(Duration.ofMillis(1500));

        assertThat(simulation.run(Duration.ofMillis(500)).pulled()).isGreaterThan(simulation.link.capacity(Duration.ofMillis(500)) * 8 / 10);
    }

    @Test
    void fillsA100MegabitLinkWithAQueueOfAtMostTheTargetAndTwoBatches() {
        Simulation simulation = new Simulation(new TestingLink(RTT, GBIT / 10));
        simulation.run(Duration.ofSeconds(3));
        Simulation.Sample steady = simulation.run(Duration.ofSeconds(2));

        assertThat(steady.pulled()).isGreaterThan(simulation.link.capacity(Duration.ofSeconds(2)) * 9 / 10);
        // A batch on the wire (its own 8 ms) is in the base latency; the window swings by about one more.
        assertThat(steady.longestQueue()).isLessThanOrEqualTo(TARGET + 2 * BATCH);
        // The bandwidth-delay product (0.94 MB) and the target's worth (0.63 MB).
        assertThat(simulation.window.window()).isBetween(900_000L, 2_000_000L);
    }

    @Test
    void aForegroundFetchDuringThePullWaitsLittleMoreThanARoundTrip() {
        for (long rate : new long[] {GBIT, GBIT / 10}) {
            Simulation simulation = new Simulation(new TestingLink(RTT, rate));
            simulation.run(Duration.ofSeconds(3));
            long now = simulation.now;

            assertThat(simulation.link.answer(now, BLOCK_BYTES) - now).as("at %d bit/s", rate)
                    .isLessThanOrEqualTo(RTT.toNanos() + TARGET + 2 * BATCH);
        }
    }

    @Test
    void yieldsToAFlowThatKeepsAQueue() {
        Simulation simulation = new Simulation(new TestingLink(RTT, GBIT / 10));
        simulation.run(Duration.ofSeconds(3));
        long alone = simulation.window.window();

        simulation.compete(2_000_000);
        simulation.run(Duration.ofSeconds(5));
        Simulation.Sample shared = simulation.run(Duration.ofSeconds(2));

        assertThat(simulation.window.window()).isLessThan(alone / 4);
        assertThat(shared.pulled()).isLessThan(shared.competing() / 4);
    }

    /** A pull over a link, and optionally a flow that keeps a fixed number of bytes in flight on it. */
    private static final class Simulation {
        private static final long COMPETING_BATCH = 256 << 10;
        final TestingLink link;
        final PullWindow window = new PullWindow(PullConfig.DEFAULT);
        /** Answers on their way: {arrival, bytes, asked at, 1 for the pull's}. */
        private final PriorityQueue<long[]> arrivals = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        private long competingWindow;
        private long competingInFlight;
        long now;

        Simulation(TestingLink link) {
            this.link = link;
        }

        void compete(long bytesInFlight) {
            competingWindow = bytesInFlight;
            send();
        }

        record Sample(long pulled, long competing, long longestQueue) {}

        Sample run(Duration duration) {
            long end = now + duration.toNanos();
            long pulled = 0;
            long competing = 0;
            long longestQueue = 0;
            send();
            while (arrivals.peek()[0] <= end) {
                long[] arrival = arrivals.poll();
                now = arrival[0];
                if (arrival[3] == 1) {
                    window.arrived(arrival[1], now - arrival[2], now);
                    pulled += arrival[1];
                } else {
                    competingInFlight -= arrival[1];
                    competing += arrival[1];
                }
                send();
                longestQueue = Math.max(longestQueue, link.queued(now));
            }
            now = end;
            return new Sample(pulled, competing, longestQueue);
        }

        private void send() {
            for (long bytes = window.batchBlocks() * BLOCK_BYTES; window.hasRoom(bytes); bytes = window.batchBlocks() * BLOCK_BYTES) {
                window.sent(bytes);
                arrivals.add(new long[] {link.answer(now, bytes), bytes, now, 1});
            }
            while (competingInFlight + COMPETING_BATCH <= competingWindow) {
                competingInFlight += COMPETING_BATCH;
                arrivals.add(new long[] {link.answer(now, COMPETING_BATCH), COMPETING_BATCH, now, 0});
            }
        }
    }
}
