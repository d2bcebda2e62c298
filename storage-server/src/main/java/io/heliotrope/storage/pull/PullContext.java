package io.heliotrope.storage.pull;

import io.heliotrope.storage.heat.HeatSource;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;

/** What the pulls of a site share: where heat comes from, the thread their steps run on, the clock, settings and meters. */
record PullContext(HeatSource heat, ScheduledExecutorService scheduler, Clock clock, PullConfig config, PullOrder order, PullMetrics metrics) {
    /** The clock's time in nanoseconds, for latencies. */
    long nanos() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
