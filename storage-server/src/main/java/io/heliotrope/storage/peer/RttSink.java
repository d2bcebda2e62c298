package io.heliotrope.storage.peer;

import java.time.Duration;
import java.util.Map;

/** Where a site's round-trip times to its peers go: the controller keeps them as the RTT matrix (DESIGN.md section 7). */
@FunctionalInterface
public interface RttSink {
    /**
     * The median round trip to each peer that answered this round (a peer that did not is
     * left out), and how long the site waits between rounds: an entry older than a few of
     * those is stale.
     */
    void report(Map<String, Duration> rtts, Duration probePeriod);
}
