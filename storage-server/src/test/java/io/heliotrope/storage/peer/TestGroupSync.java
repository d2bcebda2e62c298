package io.heliotrope.storage.peer;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class TestGroupSync {
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final AtomicInteger syncs = new AtomicInteger();
    private final GroupSync group = new GroupSync(syncs::incrementAndGet, tasks::add);

    @Test
    void requestsMadeWhileASyncRunsShareTheNextOne() {
        CompletableFuture<Void> first = group.request();
        CompletableFuture<Void> second = group.request();
        CompletableFuture<Void> third = group.request();

        assertThat(second).isSameAs(third);
        tasks.remove().run();
        assertThat(first).isCompleted();
        assertThat(second).as("started before the sync it asked for").isNotDone();
        tasks.remove().run();
        assertThat(third).isCompleted();
        assertThat(syncs).hasValue(2);
        assertThat(tasks).isEmpty();
    }

    @Test
    void aFailedSyncFailsItsRequestsAndTheNextRequestSyncsAgain() {
        AtomicInteger tries = new AtomicInteger();
        GroupSync failing = new GroupSync(() -> {
            tries.incrementAndGet();
            throw new IllegalStateException("disk gone");
        }, Runnable::run);

        assertThat(failing.request()).isCompletedExceptionally();
        assertThat(failing.request()).isCompletedExceptionally();
        assertThat(tries).hasValue(2);
    }
}
