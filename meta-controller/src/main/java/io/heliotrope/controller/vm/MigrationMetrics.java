package io.heliotrope.controller.vm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static java.util.Objects.requireNonNull;

/**
 * The migrations recorded at this controller: {@code heliotrope.migrations{outcome}}, the
 * guest downtime and the handoff of those completed (histograms; a time not measured, 0, is
 * left out) and the bytes every migration moved, whatever its outcome: RAM sent, storage
 * pushed before the switchover and fetched after it.
 */
public final class MigrationMetrics {
    /** Downtime and handoff buckets, in milliseconds: an idle guest on a LAN pauses for tens, a busy one over the WAN for seconds. */
    private static final Duration[] BUCKETS = LongStream.of(5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000)
            .mapToObj(Duration::ofMillis).toArray(Duration[]::new);

    private final MeterRegistry registry;
    private final Timer downtime;
    private final Timer handoff;
    private final Counter ramBytes;
    private final Counter storagePushedBytes;
    private final Counter storageFetchedBytes;

    public MigrationMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
        downtime = Timer.builder("heliotrope.migration.downtime")
                .description("Guest downtime of completed migrations: the source's STOP to the destination's RESUME")
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
        handoff = Timer.builder("heliotrope.migration.handoff")
                .description("Handoff of completed migrations: the source's pre-switchover to its device event")
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
        ramBytes = bytes("heliotrope.migration.ram", "RAM sent by migrations");
        storagePushedBytes = bytes("heliotrope.migration.storage.pushed", "Storage pushed by migrations' sources before the switchover");
        storageFetchedBytes = bytes("heliotrope.migration.storage.fetched", "Storage fetched by migrations' destinations after the switchover");
    }

    void recorded(MigrationRecord record) {
        Counter.builder("heliotrope.migrations")
                .description("Migrations recorded, by outcome")
                .tag("outcome", record.outcome().name().toLowerCase(Locale.ROOT))
                .register(registry)
                .increment();
        if (record.outcome() == MigrationOutcome.COMPLETED) {
            recordMicros(downtime, record.downtimeMicros());
            recordMicros(handoff, record.handoffMicros());
        }
        ramBytes.increment(record.ramBytes());
        storagePushedBytes.increment(record.storagePushedBytes());
        storageFetchedBytes.increment(record.storageFetchedBytes());
    }

    private static void recordMicros(Timer timer, long micros) {
        if (micros > 0) {
            timer.record(micros, TimeUnit.MICROSECONDS);
        }
    }

    private Counter bytes(String name, String description) {
        return Counter.builder(name).description(description).baseUnit("bytes").register(registry);
    }
}
