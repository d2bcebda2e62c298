package io.heliotrope.scheduler.decision;

import java.util.Optional;

/**
 * One scheduler at a time (DESIGN.md section 7): a ZooKeeper leader election among the
 * controllers' schedulers. A scheduler that loses its session is no longer leader until it
 * wins again; one that is not leader waits.
 */
public interface Election extends AutoCloseable {
    /** Whether this scheduler decides now. */
    boolean isLeader();

    /** The id of the scheduler that decides now, if one does. */
    Optional<String> leader();

    @Override
    void close();
}
