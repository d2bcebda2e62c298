package io.heliotrope.scheduler.migration;

import java.time.Duration;

import static java.util.Objects.requireNonNullElse;

/**
 * @param maxOutgoing migrations out of one site at once
 * @param poll how often a migration's progress is read from its source
 * @param renewal how often the prepares and standbys of a migration in flight are renewed (they lapse after 30 s)
 * @param handoffDeadline the default for how long the lease's move may take at {@code pre-switchover}
 * @param resumeWait how long the destination may take, after the source completed, to resume the guest
 * @param rollbackPatience how long a rollback retries a site or the controller that does not answer
 */
public record DriverConfig(int maxOutgoing, Duration poll, Duration renewal, Duration handoffDeadline, Duration resumeWait, Duration rollbackPatience) {
    public static final DriverConfig DEFAULT = new DriverConfig(2, null, null, null, null, null);

    public DriverConfig {
        if (maxOutgoing < 1) {
            throw new IllegalArgumentException("maxOutgoing must be at least 1: " + maxOutgoing);
        }
        poll = requireNonNullElse(poll, Duration.ofMillis(200));
        renewal = requireNonNullElse(renewal, Duration.ofSeconds(10));
        handoffDeadline = requireNonNullElse(handoffDeadline, Duration.ofSeconds(5));
        resumeWait = requireNonNullElse(resumeWait, Duration.ofSeconds(20));
        rollbackPatience = requireNonNullElse(rollbackPatience, Duration.ofSeconds(120));
    }
}
