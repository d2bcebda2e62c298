package io.heliotrope.scheduler.decision.grpc;

import io.grpc.BindableService;
import io.heliotrope.scheduler.decision.ApplicationStore;
import io.heliotrope.scheduler.decision.Applications;
import io.heliotrope.scheduler.decision.DriverMover;
import io.heliotrope.scheduler.decision.Election;
import io.heliotrope.scheduler.decision.Scheduler;
import io.heliotrope.scheduler.decision.SchedulerConfig;
import io.heliotrope.scheduler.decision.SchedulerMetrics;
import io.heliotrope.scheduler.migration.grpc.DriverHost;
import io.heliotrope.scheduler.plugin.Policies;
import io.heliotrope.scheduler.policy.BuiltinPlugin;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;

/**
 * The scheduler as it runs beside a controller: the built-in policies and the plugins of
 * its directory, the controller read over the driver's channel, moves made by the driver,
 * applications in the controller's store, one scheduler deciding at a time through the
 * election. Its service joins the controller's gRPC server; closing stops the rounds, then
 * unloads the plugins.
 */
public final class SchedulerHost implements AutoCloseable {
    private final Policies policies;
    private final Scheduler scheduler;
    private final Applications applications;

    public SchedulerHost(SchedulerConfig config, DriverHost driver, ApplicationStore store, Election election, MeterRegistry registry) {
        Clock clock = Clock.systemUTC();
        this.policies = Policies.load(List.of(new BuiltinPlugin()), config.plugins());
        this.scheduler = new Scheduler(config, store, policies, driver.cluster(), election, new DriverMover(driver.driver()), new SchedulerMetrics(registry),
                clock);
        this.applications = new Applications(store, policies, driver.cluster(), scheduler.workloads(), clock);
    }

    public BindableService service() {
        return new SchedulerGrpcService(applications, scheduler, policies);
    }

    /** Starts the periodic rounds. */
    public void start() {
        scheduler.start();
    }

    @Override
    public void close() {
        scheduler.close();
        try {
            policies.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
