package io.heliotrope.scheduler.decision;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.scheduler.decision.ApplicationStore.StoredReport;
import io.heliotrope.scheduler.spi.Policy;
import io.heliotrope.scheduler.spi.TimedReport;
import io.heliotrope.scheduler.spi.Workload;
import io.heliotrope.scheduler.workload.WorkloadReader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** The reports of each application's window, kept in the store: any controller takes them, the active scheduler reads them. */
public final class WorkloadWindow {
    private static final Logger log = LoggerFactory.getLogger(WorkloadWindow.class);

    private final ApplicationStore store;
    private final WorkloadReader reader = new WorkloadReader();

    public WorkloadWindow(ApplicationStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    /** How far back the application's decisions see: its own window, else its policy's. */
    static Duration of(Application application, Policy<?> policy) {
        return application.getWindowMillis() > 0 ? Duration.ofMillis(application.getWindowMillis()) : policy.window();
    }

    /** Keeps a report that maps onto the policy's workload type; returns how many the window holds now. */
    int add(Application application, Policy<?> policy, String json, Instant now) {
        reader.read(policy, json);
        return store.addReport(application.getName(), now, json, now.minus(of(application, policy)));
    }

    /** The reports of the policy's window before {@code now}, oldest first. */
    <W extends Workload> List<TimedReport<W>> reports(Application application, Policy<W> policy, Instant now) {
        List<TimedReport<W>> timed = new ArrayList<>();
        for (StoredReport report : store.reports(application.getName(), now.minus(of(application, policy)))) {
            try {
                timed.add(new TimedReport<>(report.receivedAt(), reader.read(policy, report.json())));
            } catch (HeliotropeException e) {
                // It mapped when it came: only a policy upgraded since refuses it, and its window is all it can cost.
                log.debug("{}: a stored report no longer maps onto policy {}: {}", application.getName(), policy.name(), e.getMessage());
            }
        }
        return timed;
    }
}
