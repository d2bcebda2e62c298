package io.heliotrope.storage.propagation;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class TestPeerBackoff {
    private final TestingScheduler time = new TestingScheduler(Instant.parse("2024-03-01T22:00:00Z"));
    private final PeerBackoff backoff = new PeerBackoff(time.clock(), Duration.ofMillis(200), Duration.ofSeconds(5), new SplittableRandom(3));

    @Test
    void aSiteThatNeverFailedTakesPushesAtOnce() {
        backoff.started("b");
        assertThat(backoff.millisLeft("b")).isZero();
        assertThat(backoff.millisLeft("c")).isZero();
    }

    @Test
    void afterAFailureOneTrialGoesOnceTheWaitHasPassedAndNoMoreUntilItIsAnswered() {
        backoff.started("b");
        long wait = backoff.failed("b");
        assertThat(backoff.millisLeft("b")).isEqualTo(wait).isBetween(100L, 200L);

        time.advance(Duration.ofMillis(wait));
        assertThat(backoff.millisLeft("b")).as("a trial may go").isZero();
        backoff.started("b");
        assertThat(backoff.millisLeft("b")).as("while the trial is under way").isEqualTo(Long.MAX_VALUE);

        backoff.answered("b");
        assertThat(backoff.millisLeft("b")).isZero();
    }

    @Test
    void aLatePushKeepsTheSiteWaitingForItsAnswerAndTheAnswerResumesPushesWhateverTheWait() {
        for (int push = 0; push < 16; push++) {
            backoff.started("b");
        }
        long wait = backoff.missed("b");
        for (int push = 1; push < 16; push++) {
            assertThat(backoff.missed("b")).as("late together: counted once").isEqualTo(wait);
        }
        time.advance(Duration.ofMinutes(1));
        assertThat(backoff.millisLeft("b")).as("no trial while 16 pushes are under way").isEqualTo(Long.MAX_VALUE);

        backoff.answered("b");

        assertThat(backoff.millisLeft("b")).isZero();
    }

    @Test
    void sitesWaitApart() {
        backoff.started("b");
        backoff.failed("b");
        assertThat(backoff.millisLeft("b")).isPositive();
        assertThat(backoff.millisLeft("c")).isZero();
    }
}
