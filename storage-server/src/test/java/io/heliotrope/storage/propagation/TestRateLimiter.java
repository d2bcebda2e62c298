package io.heliotrope.storage.propagation;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class TestRateLimiter {
    private static final Instant MIDNIGHT = Instant.parse("2024-03-01T00:00:00Z");

    private final TestingScheduler time = new TestingScheduler(MIDNIGHT.plusSeconds(3600));

    @Test
    void noWindowOfOneSecondHoldsMoreThanTheCap() {
        long cap = 1_000_000;
        RateLimiter limiter = new RateLimiter(time.clock(), cap, 0);
        SplittableRandom random = new SplittableRandom(7);
        List<long[]> grants = new ArrayList<>();
        long start = time.clock().millis();
        while (time.clock().millis() < start + 20_000) {
            long bytes = 1 + random.nextLong(200_000);
            if (limiter.tryAcquire(bytes) != null) {
                grants.add(new long[] {time.clock().millis(), bytes});
            }
            time.advance(Duration.ofMillis(random.nextLong(40)));
        }

        // The fullest window starts at a grant; windows starting anywhere else are checked too.
        for (long[] grant : grants) {
            assertThat(sum(grants, grant[0])).isLessThanOrEqualTo(cap);
        }
        for (long from = start - 999; from < start + 20_000; from += 7) {
            assertThat(sum(grants, from)).isLessThanOrEqualTo(cap);
        }
        assertThat(grants.stream().mapToLong(grant -> grant[1]).sum()).isGreaterThan(18 * cap);
    }

    @Test
    void saysHowLongUntilBytesFit() {
        RateLimiter limiter = new RateLimiter(time.clock(), 1000, 0);
        assertThat(limiter.tryAcquire(600)).isNotNull();
        time.advance(Duration.ofMillis(300));
        assertThat(limiter.tryAcquire(300)).isNotNull();

        assertThat(limiter.available()).isEqualTo(100);
        assertThat(limiter.millisUntil(100)).isZero();
        assertThat(limiter.millisUntil(500)).isEqualTo(700);
        assertThat(limiter.millisUntil(800)).isEqualTo(1000);
        assertThat(limiter.millisUntil(1001)).isEqualTo(-1);
        time.advance(Duration.ofMillis(699));
        assertThat(limiter.tryAcquire(500)).isNull();
        time.advance(Duration.ofMillis(1));
        assertThat(limiter.tryAcquire(500)).isNotNull();
    }

    @Test
    void refundedBytesLeaveRoom() {
        RateLimiter limiter = new RateLimiter(time.clock(), 1000, 5000);
        RateLimiter.Grant grant = limiter.tryAcquire(1000);
        assertThat(limiter.available()).isZero();

        limiter.refund(grant, 400);

        assertThat(limiter.available()).isEqualTo(400);
        assertThat(limiter.tryAcquire(400)).isNotNull();
        time.advance(Duration.ofSeconds(1));
        assertThat(limiter.available()).isEqualTo(1000);
    }

    @Test
    void theBudgetStopsGrantsUntilMidnightUtc() {
        time.advance(Duration.ofHours(22));
        RateLimiter limiter = new RateLimiter(time.clock(), 1000, 2500);
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire(limiter.available())).isNotNull();
            time.advance(Duration.ofSeconds(1));
        }

        assertThat(limiter.available()).isZero();
        assertThat(limiter.millisUntil(1)).isEqualTo(Duration.ofHours(1).minusSeconds(3).toMillis());
        time.advance(Duration.ofMinutes(56));
        assertThat(limiter.tryAcquire(1)).isNull();
        time.advance(Duration.ofMillis(limiter.millisUntil(1)));
        assertThat(time.clock().instant()).isEqualTo(MIDNIGHT.plus(Duration.ofDays(1)));
        assertThat(limiter.available()).isEqualTo(1000);
    }

    @Test
    void limitsChangeAtRunTime() {
        RateLimiter limiter = new RateLimiter(time.clock(), 0, 0);
        assertThat(limiter.available()).isEqualTo(Long.MAX_VALUE);
        assertThat(limiter.tryAcquire(10_000)).isNotNull();

        limiter.limits(15_000, 0);
        assertThat(limiter.available()).isEqualTo(5_000);
        limiter.limits(15_000, 12_000);
        assertThat(limiter.available()).isEqualTo(2_000);
        limiter.limits(5_000, 0);
        assertThat(limiter.available()).isZero();
        assertThat(limiter.millisUntil(1)).isEqualTo(1000);
    }

    /** Bytes granted in {@code [from, from + 1 s)}. */
    private static long sum(List<long[]> grants, long from) {
        return grants.stream().filter(grant -> grant[0] >= from && grant[0] < from + 1000).mapToLong(grant -> grant[1]).sum();
    }
}
