package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.spi.RttMatrix;
import io.heliotrope.scheduler.spi.Sites;

/** How the built-ins read the matrix. */
final class RoundTrips {
    private RoundTrips() {}

    /** The number of a front end's site; a site the scheduler does not know fails the decision. */
    static int site(Sites sites, String name) {
        int site = sites.indexOf(name);
        if (site < 0) {
            throw new IllegalArgumentException("front end site " + name + " is not a registered site");
        }
        return site;
    }

    /** An entry, {@link RttMatrix#UNKNOWN} read as 0 (see the package documentation). */
    static long micros(RttMatrix rtt, int from, int to) {
        return Math.max(0, rtt.micros(from, to));
    }
}
