package io.heliotrope.storage.peer;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class TestGroupSync {
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final AtomicInteger syncs = new AtomicInteger();
    private final GroupSync group = new GroupSync(syncs::incrementAndGet, tasks::add);

    @Test
    void requestsMadeBeforeASyncStartsShareItAndThoseMadeWhileItRunsShareTheNextOne() {
        List<CompletableFuture<Void>> whileItRuns = new ArrayList<>();
        Runnable[] during = {() -> { }};
        GroupSync hooked = new GroupSync(() -> {
            syncs.incrementAndGet();
            during[0].run();
        }, tasks::add);
        CompletableFuture<Void> first = hooked.request();
        CompletableFuture<Void> beforeItStarts = hooked.request();
        during[0] = () -> {
            whileItRuns.add(hooked.request());
            whileItRuns.add(hooked.request());
            during[0] = () -> { };
        };

        assertThat(beforeItStarts).as("the sync reads the marks as it starts").isSameAs(first);
        tasks.remove().run();
        assertThat(first).isCompleted();
        assertThat(whileItRuns.get(0)).isSameAs(whileItRuns.get(1)).isNotDone();
        tasks.remove().run();
        assertThat(whileItRuns.get(0)).isCompleted();
        assertThat(syncs).hasValue(2);
        assertThat(tasks).isEmpty();
    }

    @Test
    void aMarkCoveredByASyncThatEndedNeedsNoOtherAndOneCoveredByTheRunningSyncSharesIt() {
        long stored = group.stored();
        CompletableFuture<Void> flush = group.request(stored);
        tasks.remove().run();
        assertThat(flush).isCompleted();

        assertThat(group.request(stored)).as("covered already").isCompleted();
        assertThat(tasks).isEmpty();
        long later = group.stored();
        CompletableFuture<Void> early = group.request(later);
        assertThat(group.request(later)).as("a FLUSH after the write whose sync it started").isSameAs(early);
        tasks.remove().run();
        assertThat(syncs).hasValue(2);
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
