package io.heliotrope.scheduler.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A placement policy: how to score the placements of an application's VMs under the
 * workload it reports. One instance serves every application that names it, from many
 * threads at once; keep state in the {@link Scorer}s it prepares.
 *
 * @param <W> the workload report, a type Jackson maps a report's JSON onto (a record is
 *            best; unknown fields are refused, and a constructor that throws
 *            {@link IllegalArgumentException} refuses the report with its message)
 */
public interface Policy<W extends Workload> {
    /** How applications name it: lowercase letters, digits and dashes, unique among the loaded policies. */
    String name();

    /** A line for {@code helio app create --help} and the list of policies. */
    default String description() {
        return name();
    }

    Class<W> workloadType();

    /** How far back {@link #smooth} sees, unless an application sets its own window ({@code helio app create --window}). */
    default Duration window() {
        return Duration.ofMinutes(5);
    }

    /**
     * The workload a decision uses, from the reports of the last {@link #window()}, oldest
     * first, never empty: what evens out a burst (the built-ins average each front end).
     */
    W smooth(List<TimedReport<W>> reports);

    /**
     * Checks an application's settings when it is created or changed; an
     * {@link IllegalArgumentException} refuses them with its message.
     */
    default void validate(Application application) {
    }

    /**
     * Whether the policy allows a whole plan at all (pinned or avoided sites, VMs kept
     * together or apart). A rejected plan is never chosen; a rejected current plan scores
     * minus infinity, so that any allowed plan is better. Site capacity is checked by the
     * scheduler itself, before this.
     */
    default Verdict filter(Application application, Sites sites, Plan plan) {
        return Verdict.ACCEPT;
    }

    /**
     * The expensive part, once per decision: whatever makes {@link Scorer#score} cheap.
     * The matrix has every registered site; entries no plan may use read {@link RttMatrix#UNKNOWN}.
     */
    Scorer prepare(Application application, W workload, RttMatrix rtt);

    /**
     * An exact solver for the scorers this policy prepares, if it has one; the scheduler
     * uses it when no capacity, filter or unknown entry constrains the plans (and checks its
     * answer), the generic search otherwise.
     */
    default Optional<Solver> solver() {
        return Optional.empty();
    }
}
