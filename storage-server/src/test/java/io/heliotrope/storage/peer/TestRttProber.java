package io.heliotrope.storage.peer;

import io.heliotrope.concurrent.BoundedExecutors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

class TestRttProber {
    private final ScheduledExecutorService scheduler = BoundedExecutors.scheduled("test-rtt", 1, 16);
    private final TestingPeers peers = new TestingPeers();
    private final TestingSiteDirectory directory = new TestingSiteDirectory("a").put("a", "a:1").put("b", "b:1").put("c", "c:1");
    private final BlockingQueue<Map<String, Duration>> reports = new LinkedBlockingQueue<>();
    private final BlockingQueue<Duration> periods = new LinkedBlockingQueue<>();
    private final RttProber prober = new RttProber(peers, directory, (rtts, period) -> {
        periods.add(period);
        reports.add(rtts);
    }, scheduler, Duration.ofMillis(10), 5);

    @AfterEach
    void close() throws InterruptedException {
        prober.close();
        BoundedExecutors.shutdown(scheduler, Duration.ofSeconds(5));
    }

    @Test
    void reportsTheMedianOfEachLivePeerAndLeavesOutADeadOne() throws InterruptedException {
        peers.answer("b", millis(5), millis(1), millis(30), millis(2), millis(4));
        prober.start();

        assertThat(nextReport(report -> true)).containsExactly(entry("b", millis(4)));
        assertThat(nextReport(report -> true)).as("the next round").containsExactly(entry("b", millis(4)));
        assertThat(periods.peek()).as("the interval between rounds").isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void aPeerThatAnswersAgainIsInTheReportsAgain() throws InterruptedException {
        peers.answer("b", millis(2));
        prober.start();
        assertThat(nextReport(report -> true)).containsOnlyKeys("b");

        peers.answer("c", millis(7));

        assertThat(nextReport(report -> report.containsKey("c"))).containsExactly(entry("b", millis(2)), entry("c", millis(7)));
    }

    @Test
    void theMedianOfAnEvenNumberOfProbesIsMidwayBetweenTheMiddleTwo() {
        assertThat(RttProber.median(List.of(millis(4), millis(1), millis(2), millis(9)))).isEqualTo(millis(3));
    }

    /** The first report that matches, waiting up to 10 s for it. */
    private Map<String, Duration> nextReport(Predicate<Map<String, Duration>> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Map<String, Duration> report = reports.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertThat(report).as("a report within 10 s").isNotNull();
            if (wanted.test(report)) {
                return report;
            }
        }
    }

    private static Duration millis(long millis) {
        return Duration.ofMillis(millis);
    }
}
