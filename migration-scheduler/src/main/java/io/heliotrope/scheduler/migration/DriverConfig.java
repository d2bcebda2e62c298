package io.heliotrope.scheduler.migration;

import java.time.Duration;

import static java.util.Objects.requireNonNullElse;

/**
 * @param maxOutgoing migrations out of one site at once (migrations switched over together count as one)
 * @param poll how often a migration's progress is read from its source
 * @param renewal how often the prepares and standbys of a migration in flight are renewed (they lapse after 30 s)
 * @param handoffDeadline the default for how long the lease's move may take at {@code pre-switchover}
 * @param resumeWait how long the destination may take, after the source completed, to resume the guest
 * @param rollbackPatience how long a rollback retries a site or the controller that does not answer
 * @param sourcePatience how long a source that does not answer (a site restarting) may stay silent before its migration rolls back
 * @param barrier the default for how long the first member of an ensemble parked at {@code pre-switchover} waits for the others
 * @param barrierPoll how often a member of an ensemble is read: its guest is paused while it waits, so more often than {@code poll}
 */
public record DriverConfig(int maxOutgoing, Duration poll, Duration renewal, Duration handoffDeadline, Duration resumeWait, Duration rollbackPatience,
        Duration sourcePatience, Duration barrier, Duration barrierPoll) {
    public static final DriverConfig DEFAULT = new DriverConfig(2, null, null, null, null, null, null, null, null);

    public DriverConfig {
        if (maxOutgoing < 1) {
            throw new IllegalArgumentException("maxOutgoing must be at least 1: " + maxOutgoing);
        }
        poll = requireNonNullElse(poll, Duration.ofMillis(200));
        renewal = requireNonNullElse(renewal, Duration.ofSeconds(10));
        handoffDeadline = requireNonNullElse(handoffDeadline, Duration.ofSeconds(5));
        resumeWait = requireNonNullElse(resumeWait, Duration.ofSeconds(20));
        rollbackPatience = requireNonNullElse(rollbackPatience, Duration.ofSeconds(120));
        sourcePatience = requireNonNullElse(sourcePatience, Duration.ofSeconds(30));
        barrier = requireNonNullElse(barrier, Duration.ofSeconds(2));
        barrierPoll = requireNonNullElse(barrierPoll, Duration.ofMillis(10));
    }
}
