package io.heliotrope.storage.peer;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestBackoff {
    private final Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5), new SplittableRandom(7));

    @Test
    void eachWaitIsDrawnBetweenHalfAndAllOfADoublingCeilingUpToTheLongest() {
        long now = 0;
        for (long ceiling : new long[] {200, 400, 800, 1600, 3200, 5000, 5000, 5000}) {
            long wait = backoff.failed(now);
            assertThat(wait).isBetween(ceiling / 2, ceiling);
            assertThat(backoff.millisLeft(now)).isEqualTo(wait);
            now += wait;
            assertThat(backoff.millisLeft(now)).isZero();
        }
        assertThat(backoff.failing()).isTrue();
    }

    @Test
    void waitsDifferBetweenPeersThatFailedTogether() {
        SplittableRandom random = new SplittableRandom(7);
        Set<Long> waits = new HashSet<>();
        for (int peer = 0; peer < 10; peer++) {
            waits.add(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(5), random.split()).failed(0));
        }
        assertThat(waits).hasSizeGreaterThan(5).allSatisfy(wait -> assertThat(wait).isBetween(500L, 1000L));
    }

    @Test
    void failuresWhileAWaitRunsCountOnce() {
        long first = backoff.failed(0);
        for (int call = 0; call < 31; call++) {
            assertThat(backoff.failed(10)).isEqualTo(first - 10);
        }
        assertThat(backoff.failed(first)).as("the second wait").isBetween(200L, 400L);
    }

    @Test
    void aSuccessEndsTheWaitAndTheNextFailureStartsFromTheFirst() {
        long now = 0;
        for (int failure = 0; failure < 5; failure++) {
            now += backoff.failed(now);
        }
        backoff.failed(now);
        backoff.succeeded();

        assertThat(backoff.failing()).isFalse();
        assertThat(backoff.millisLeft(now)).isZero();
        assertThat(backoff.failed(now)).isBetween(100L, 200L);
    }

    @Test
    void rejectsALongestShorterThanTheFirst() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), new SplittableRandom()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backoffs must not be negative, nor the longest shorter than the first: PT2S, PT1S");
    }
}
