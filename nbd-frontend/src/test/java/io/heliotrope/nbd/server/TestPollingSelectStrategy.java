package io.heliotrope.nbd.server;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPollingSelectStrategy {
    private static final long POLL = 500_000;

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final PollingSelectStrategy strategy = new PollingSelectStrategy(POLL, clock::get);

    @Test
    void hasTheReadySocketsHandledAtOnce() throws Exception {
        assertThat(strategy.calculateStrategy(() -> 3, false)).isEqualTo(3);
        assertThat(strategy.calculateStrategy(() -> 0, true)).isZero();
    }

    @Test
    void aLoopWhoseRequestsComeCloseTogetherPollsUpToItsLimitThenSleeps() throws Exception {
        requestsEvery(50_000, 40);
        assertThat(idle(0)).isEqualTo(SelectStrategy.CONTINUE);
        assertThat(idle(POLL - 1)).isEqualTo(SelectStrategy.CONTINUE);
        assertThat(idle(1)).isEqualTo(SelectStrategy.SELECT);
    }

    @Test
    void aLoopWhoseRequestsComeFurtherApartSleepsAtOnce() throws Exception {
        assertThat(idle(0)).as("a new loop has no history yet").isEqualTo(SelectStrategy.SELECT);
        requestsEvery(50_000, 40);
        requestsEvery(2 * POLL, 40);
        assertThat(idle(0)).isEqualTo(SelectStrategy.SELECT);
        requestsEvery(50_000, 40);
        assertThat(idle(0)).as("polls again once requests come close together again").isEqualTo(SelectStrategy.CONTINUE);
    }

    @Test
    void aLoopThatNeverPollsSleepsAtOnce() throws Exception {
        PollingSelectStrategy never = new PollingSelectStrategy(0, clock::get);
        for (int i = 0; i < 40; i++) {
            assertThat(never.calculateStrategy(() -> 1, false)).isEqualTo(1);
            assertThat(never.calculateStrategy(() -> 0, false)).isEqualTo(SelectStrategy.SELECT);
        }
        assertThatThrownBy(() -> new PollingSelectStrategy(-1, clock::get)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Requests that come {@code gap} ns after the loop ran out of work, whether it polled or slept meanwhile. */
    private void requestsEvery(long gap, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            int waits = strategy.calculateStrategy(() -> 0, false);
            clock.addAndGet(gap);
            if (waits == SelectStrategy.CONTINUE) {
                assertThat(strategy.calculateStrategy(() -> 1, false)).isEqualTo(1);
            }
            // A loop that slept handles what woke it without asking the strategy.
        }
    }

    /** What the loop does after {@code nanos} more without work. */
    private int idle(long nanos) throws Exception {
        clock.addAndGet(nanos);
        return strategy.calculateStrategy(() -> 0, false);
    }
}
