package io.heliotrope.scheduler.runner;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Futures over a VM's disks, joined: done when all are, failed as soon as one fails. */
final class AllOrFirstFailure {
    private AllOrFirstFailure() {}

    static CompletableFuture<Void> of(List<CompletableFuture<Void>> futures) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).thenRun(() -> result.complete(null));
        futures.forEach(future -> future.whenComplete((ignored, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            }
        }));
        return result;
    }
}
