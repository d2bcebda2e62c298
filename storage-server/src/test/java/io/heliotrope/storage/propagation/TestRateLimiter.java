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
        // Asking at random times, not when the pace allows, loses part of it: grantsComeEvenlySpaced... shows the full rate.
        assertThat(grants.stream().mapToLong(grant -> grant[1]).sum()).isGreaterThan(16 * cap);
    }

    @Test
    void grantsComeEvenlySpacedAQuantumAtATime() {
        long cap = 100_000;
        RateLimiter limiter = new RateLimiter(time.clock(), cap, 0);
        assertThat(limiter.quantum()).isEqualTo(1000);
        List<long[]> grants = new ArrayList<>();
        long start = time.clock().millis();
        while (time.clock().millis() < start + 5_000) {
            long wait = limiter.millisUntil(limiter.quantum());
            time.advance(Duration.ofMillis(wait));
            assertThat(limiter.tryAcquire(limiter.quantum())).isNotNull();
            grants.add(new long[] {time.clock().millis(), limiter.quantum()});
        }

        for (int i = 1; i < grants.size(); i++) {
            // 1000 bytes at 99,000 bytes/s: 10.1 ms, rounded to whole milliseconds.
            assertThat(grants.get(i)[0] - grants.get(i - 1)[0]).isBetween(10L, 11L);
        }
        for (long[] grant : grants) {
            // A quantum less than the cap: room for one grant that arrives late at the receiver.
            assertThat(sum(grants, grant[0])).isLessThanOrEqualTo(cap - limiter.quantum());
        }
    }

    @Test
    void aRequesterThatComesLateStillGetsTheRate() {
        long cap = 100_000;
        RateLimiter limiter = new RateLimiter(time.clock(), cap, 0);
        List<long[]> grants = new ArrayList<>();
        long start = time.clock().millis();
        while (time.clock().millis() < start + 5_000) {
            // As a timer does: it fires a few milliseconds after it was due.
            time.advance(Duration.ofMillis(limiter.millisUntil(limiter.quantum()) + 3));
            assertThat(limiter.tryAcquire(limiter.quantum())).isNotNull();
            grants.add(new long[] {time.clock().millis(), limiter.quantum()});
        }

        long granted = grants.stream().mapToLong(grant -> grant[1]).sum();
        assertThat(granted).isGreaterThanOrEqualTo((long) (0.97 * 5 * (cap - limiter.quantum())));
        for (long[] grant : grants) {
            assertThat(sum(grants, grant[0])).isLessThanOrEqualTo(cap - limiter.quantum());
        }
    }

    @Test
    void saysHowLongUntilBytesFit() {
        RateLimiter limiter = new RateLimiter(time.clock(), 1000, 0);
        assertThat(limiter.tryAcquire(600)).isNotNull();
        // The pace: 600 bytes at the 990 bytes/s the window holds.
        assertThat(limiter.available()).isZero();
        assertThat(limiter.millisUntil(1)).isEqualTo(607);
        time.advance(Duration.ofMillis(300));
        assertThat(limiter.tryAcquire(1)).isNull();
        assertThat(limiter.millisUntil(300)).isEqualTo(307);
        time.advance(Duration.ofMillis(307));
        assertThat(limiter.tryAcquire(300)).isNotNull();

        // The pace keeps to its schedule: the grant came 1 ms after it was due, less than a quantum's pace late.
        assertThat(limiter.millisUntil(90)).isEqualTo(303);
        assertThat(limiter.millisUntil(500)).isEqualTo(393);
        assertThat(limiter.millisUntil(990)).isEqualTo(1000);
        assertThat(limiter.millisUntil(991)).isEqualTo(-1);
        assertThat(limiter.fits(990)).isTrue();
        assertThat(limiter.fits(991)).isFalse();
        time.advance(Duration.ofMillis(392));
        assertThat(limiter.tryAcquire(500)).isNull();
        time.advance(Duration.ofMillis(1));
        assertThat(limiter.tryAcquire(500)).isNotNull();
    }

    @Test
    void refundedBytesLeaveRoomAndTakeBackTheirPace() {
        RateLimiter limiter = new RateLimiter(time.clock(), 1000, 5000);
        RateLimiter.Grant grant = limiter.tryAcquire(990);
        assertThat(limiter.millisUntil(1)).isEqualTo(1000);

        limiter.refund(grant, 400);

        assertThat(limiter.millisUntil(400)).isEqualTo(596);
        time.advance(Duration.ofMillis(596));
        assertThat(limiter.available()).isEqualTo(400);
        assertThat(limiter.tryAcquire(400)).isNotNull();
        time.advance(Duration.ofSeconds(1));
        assertThat(limiter.available()).isEqualTo(990);
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
        assertThat(limiter.available()).isEqualTo(990);
    }

    @Test
    void limitsChangeAtRunTime() {
        RateLimiter limiter = new RateLimiter(time.clock(), 0, 0);
        assertThat(limiter.available()).isEqualTo(Long.MAX_VALUE);
        assertThat(limiter.quantum()).isEqualTo(Long.MAX_VALUE);
        assertThat(limiter.tryAcquire(10_000)).isNotNull();

        limiter.limits(15_000, 0);
        assertThat(limiter.available()).isEqualTo(4_850);
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
