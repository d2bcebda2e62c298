package io.heliotrope.cli.server;

import io.heliotrope.cli.print.DurationConverter;
import io.heliotrope.controller.server.ControllerServer;
import io.heliotrope.scheduler.decision.SchedulerConfig;
import io.heliotrope.scheduler.decision.grpc.SchedulerHost;
import io.heliotrope.scheduler.migration.grpc.DriverHost;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;

/** The scheduler's options, the same for {@code helio controller} and {@code helio up}. */
public final class SchedulerOptions {
    @Option(names = "--plugins", paramLabel = "DIR",
            description = {"Placement-policy plugins: each jar, or directory of jars, in DIR is one (default:",
                    "~/.local/share/heliotrope/plugins; for helio up, DATA-DIR/plugins)."})
    Path plugins;

    @Option(names = "--scheduler-period", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "60s",
            description = "How often the scheduler decides every application (default: ${DEFAULT-VALUE}).")
    Duration period;

    @Option(names = "--dwell", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "10m",
            description = "A VM the scheduler placed stays at least this long, unless its application sets its own (default: ${DEFAULT-VALUE}).")
    Duration dwell;

    /** {@code $XDG_DATA_HOME/heliotrope/plugins}, else {@code ~/.local/share/heliotrope/plugins}. */
    public static Path defaultPlugins() {
        String data = System.getenv("XDG_DATA_HOME");
        Path base = data == null || data.isEmpty() ? Path.of(System.getProperty("user.home"), ".local", "share") : Path.of(data);
        return base.resolve("heliotrope").resolve("plugins");
    }

    /**
     * Starts the scheduler beside {@code server}, electing as {@code id} (the controller's
     * address), its moves made by {@code driver}; its plugins from {@code --plugins}, else
     * {@code defaultPlugins}. Close it before the driver and the server.
     */
    public SchedulerHost start(ControllerServer server, DriverHost driver, String id, Path defaultPlugins) {
        SchedulerConfig config = new SchedulerConfig(period, dwell, null, null, null, plugins(defaultPlugins));
        SchedulerHost scheduler = new SchedulerHost(config, driver, server.applications(), server.election(id), server.metrics().registry());
        server.addService(scheduler.service());
        scheduler.start();
        return scheduler;
    }

    /** {@code --plugins}, else {@code defaultPlugins}. */
    public Path plugins(Path defaultPlugins) {
        return plugins != null ? plugins : defaultPlugins;
    }
}
