package io.heliotrope.scheduler.spi;

import java.util.Optional;
import java.util.Set;

/** What every workload report tells the scheduler, whatever else it holds. */
public interface Workload {
    /**
     * The sites the report's load comes from (its front ends). Plans are scored only where
     * the round trips between these sites and the plan's sites are known.
     */
    Set<String> sites();

    /** The VM that leads the application now, if the application has a leader and the report knows it. */
    default Optional<String> leader() {
        return Optional.empty();
    }
}
