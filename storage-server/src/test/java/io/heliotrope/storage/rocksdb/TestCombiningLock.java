package io.heliotrope.storage.rocksdb;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class TestCombiningLock {
    private final List<String> runs = new ArrayList<>();
    private final List<String> completed = new ArrayList<>();

    private void run(Queue<String> queue, List<String> ran) {
        for (String work; (work = queue.poll()) != null; ) {
            runs.add(work);
            ran.add(work);
        }
    }

    @Test
    void workQueuedWhileTheLockIsTakenRunsBeforeTheHolderLetsGoAndCompletesAfter() throws Exception {
        CombiningLock<String> lock = new CombiningLock<>(this::run, completed::add);
        lock.lock();
        CompletableFuture.runAsync(() -> {
            lock.queue("a");
            lock.queue("b");
            lock.runQueued();
        }).get(10, TimeUnit.SECONDS);
        assertThat(runs).as("the lock was taken").isEmpty();
        lock.unlock();
        assertThat(runs).containsExactly("a", "b");
        assertThat(completed).containsExactly("a", "b");
    }

    @Test
    void aHolderHeldMoreThanOnceRunsTheQueueOnlyWhenItLetsGoForGood() {
        CombiningLock<String> lock = new CombiningLock<>(this::run, completed::add);
        lock.lock();
        lock.lock();
        lock.queue("a");
        lock.unlock();
        assertThat(runs).isEmpty();
        lock.unlock();
        assertThat(runs).containsExactly("a");
        lock.queue("b");
        lock.runQueued();
        assertThat(runs).as("nobody held the lock").containsExactly("a", "b");
        assertThat(completed).containsExactly("a", "b");
    }

    /**
     * The race the second look at the queue is for: work queued after the holder's runner
     * found the queue empty, by a thread that then found the lock still taken.
     */
    @Test
    void workQueuedAfterTheHoldersLastLookAtTheQueueRunsAllTheSame() throws Exception {
        CountDownLatch queueLookedAt = new CountDownLatch(1);
        CountDownLatch queuedLate = new CountDownLatch(1);
        CombiningLock<String> lock = new CombiningLock<>((queue, ran) -> {
            run(queue, ran);
            if (queueLookedAt.getCount() > 0) {
                queueLookedAt.countDown();
                await(queuedLate);
            }
        }, completed::add);
        CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> {
            lock.lock();
            lock.queue("first");
            lock.unlock();
        });
        assertThat(queueLookedAt.await(10, TimeUnit.SECONDS)).isTrue();
        lock.queue("late");
        lock.runQueued();
        queuedLate.countDown();
        assertThat(holding).succeedsWithin(Duration.ofSeconds(10));
        assertThat(runs).containsExactly("first", "late");
        assertThat(completed).containsExactly("first", "late");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
