package io.heliotrope.scheduler.decision;

import java.nio.file.Path;
import java.time.Duration;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * How the scheduler runs (DESIGN.md section 7).
 *
 * @param period     how often every application is decided (paper: every minute)
 * @param dwell      an application's VMs stay at least this long after a move, unless the application sets its own
 * @param cooldown   after a failed migration, how long the application is left alone
 * @param exclusion  how long a failed migration's destination is not used for the application
 * @param rttWindow  the window of the RTT minimum filter
 * @param plugins    the directory of policy plugins
 */
public record SchedulerConfig(Duration period, Duration dwell, Duration cooldown, Duration exclusion, Duration rttWindow, Path plugins) {
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(60);
    public static final Duration DEFAULT_DWELL = Duration.ofMinutes(10);

    public SchedulerConfig {
        period = requireNonNullElse(period, DEFAULT_PERIOD);
        dwell = requireNonNullElse(dwell, DEFAULT_DWELL);
        cooldown = requireNonNullElse(cooldown, Duration.ofMinutes(5));
        exclusion = requireNonNullElse(exclusion, Duration.ofMinutes(30));
        rttWindow = requireNonNullElse(rttWindow, Duration.ofMinutes(2));
        requireNonNull(plugins, "plugins is null");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("the scheduler's period must be positive: " + period);
        }
    }
}
