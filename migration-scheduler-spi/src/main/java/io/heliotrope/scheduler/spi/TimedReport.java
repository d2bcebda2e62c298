package io.heliotrope.scheduler.spi;

import java.time.Instant;

import static java.util.Objects.requireNonNull;

/** A workload report as the scheduler received it. */
public record TimedReport<W extends Workload>(Instant receivedAt, W workload) {
    public TimedReport {
        requireNonNull(receivedAt, "receivedAt is null");
        requireNonNull(workload, "workload is null");
    }
}
