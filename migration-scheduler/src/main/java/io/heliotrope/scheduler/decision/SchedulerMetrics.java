package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.scheduler.v1.Decision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;

/** The scheduler's metrics: {@code heliotrope.scheduler.decisions{outcome}} and the search's time. */
public final class SchedulerMetrics {
    private final MeterRegistry registry;
    private final Timer search;

    public SchedulerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.search = Timer.builder("heliotrope.scheduler.search")
                .description("Time to the best plan of one decision")
                .publishPercentileHistogram()
                .register(registry);
    }

    void decided(Decision decision) {
        Counter.builder("heliotrope.scheduler.decisions")
                .description("Decisions taken, by outcome")
                .tag("outcome", Outcomes.label(decision.getOutcome()))
                .register(registry)
                .increment();
        if (decision.hasBest()) {
            search.record(Duration.ofNanos(decision.getSearchMicros() * 1_000));
        }
    }
}
