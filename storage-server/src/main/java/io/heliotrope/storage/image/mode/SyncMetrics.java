package io.heliotrope.storage.image.mode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Collection;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The {@code sync} images of a site: how their writes were acknowledged, how many run
 * degraded now and what they still owe the sites that missed writes. Not tagged by image,
 * to bound cardinality: {@code image show} names them.
 */
final class SyncMetrics {
    private final Counter copied;
    private final Counter degraded;
    private final Counter refused;
    private final Counter caughtUp;
    private final Counter pushes;

    /** @param open the sync images open for write here; held strongly (a gauge holds its object weakly, and a lambda has no other holder) */
    SyncMetrics(MeterRegistry registry, Supplier<Collection<SyncStatus>> open) {
        requireNonNull(open, "open is null");
        copied = writes(registry, "copied");
        degraded = writes(registry, "degraded");
        refused = writes(registry, "refused");
        caughtUp = Counter.builder("heliotrope.sync.caught.up.blocks")
                .description("Blocks written while an image was degraded, pushed since to the sites that missed them")
                .register(registry);
        pushes = Counter.builder("heliotrope.sync.pushes")
                .description("Pushes of sync writes' copies to the sync sites; the writes that wait while others are under way go together, "
                        + "so writes per push (heliotrope_sync_writes_total over this) shows how much they were coalesced")
                .register(registry);
        Gauge.builder("heliotrope.sync.degraded.images", open, statuses -> statuses.get().stream().filter(SyncStatus::degraded).count())
                .description("Sync images open for write here that run degraded: losing this site loses the writes only it holds")
                .strongReference(true)
                .register(registry);
        Gauge.builder("heliotrope.sync.missed.blocks", open, statuses -> statuses.get().stream().mapToLong(SyncStatus::missedBlocks).sum())
                .description("Blocks written while degraded that have not reached the sync sites yet")
                .strongReference(true)
                .register(registry);
    }

    private static Counter writes(MeterRegistry registry, String outcome) {
        return Counter.builder("heliotrope.sync.writes").tag("outcome", outcome)
                .description("Writes of sync images: copied (every sync copy made), degraded (acknowledged with fewer, at least sync min),"
                        + " refused (failed: fewer than sync min in time)")
                .register(registry);
    }

    void copied() {
        copied.increment();
    }

    void degraded() {
        degraded.increment();
    }

    void refused() {
        refused.increment();
    }

    void pushed() {
        pushes.increment();
    }

    void caughtUp(long blocks) {
        caughtUp.increment(blocks);
    }
}
