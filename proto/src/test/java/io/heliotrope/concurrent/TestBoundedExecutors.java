package io.heliotrope.concurrent;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestBoundedExecutors {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    @Test
    void aFullPoolRefusesWorkAsOverloadedAndAClosedOneAsShuttingDown() throws InterruptedException {
        ExecutorService executor = BoundedExecutors.fixed("test-pool", 1, 1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> running = BoundedExecutors.supplyAsync(() -> {
            await(release);
            return Thread.currentThread().getName();
        }, executor, "the pool");
        CompletableFuture<String> queued = BoundedExecutors.supplyAsync(() -> "queued", executor, "the pool");

        assertRefused(BoundedExecutors.supplyAsync(() -> "refused", executor, "the pool"), ErrorCode.PEER_UNAVAILABLE, "the pool is overloaded; try again");
        release.countDown();
        assertThat(running.join()).isEqualTo("test-pool-1");
        assertThat(queued.join()).isEqualTo("queued");

        BoundedExecutors.shutdown(executor, PATIENCE);
        assertRefused(BoundedExecutors.supplyAsync(() -> "late", executor, "the pool"), ErrorCode.SHUTTING_DOWN, "the pool is shutting down");
    }

    @Test
    void aScheduledPoolCountsWaitingPeriodicTasksUntilTheyAreCancelled() throws InterruptedException {
        ScheduledThreadPoolExecutor executor = BoundedExecutors.scheduled("test-timer", 1, 2);
        ScheduledFuture<?> first = executor.scheduleWithFixedDelay(() -> {}, 1, 1, TimeUnit.HOURS);
        executor.scheduleWithFixedDelay(() -> {}, 1, 1, TimeUnit.HOURS);
        assertThatThrownBy(() -> executor.execute(() -> {})).isInstanceOf(RejectedExecutionException.class)
                .hasMessage("all 2 places of the queue are taken");

        first.cancel(false);
        CountDownLatch ran = new CountDownLatch(1);
        executor.execute(ran::countDown);
        assertThat(ran.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        BoundedExecutors.shutdown(executor, PATIENCE);
        assertThat(executor.isTerminated()).isTrue();
    }

    private static void assertRefused(CompletableFuture<String> future, ErrorCode code, String message) {
        assertThatThrownBy(future::join).cause().isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessage(message);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
