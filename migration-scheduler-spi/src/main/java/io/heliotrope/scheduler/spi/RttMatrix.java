package io.heliotrope.scheduler.spi;

/**
 * Round-trip times between the sites, in microseconds, as the sites measured them (the
 * minimum over a recent window of each site's medians, which load cannot inflate).
 * {@code micros(x, x)} is the site's intra-site round trip, a setting of the site
 * (1 ms unless set).
 */
public interface RttMatrix extends Sites {
    /** What an entry reads when it is missing or too old to use. */
    long UNKNOWN = -1;

    /**
     * The round trip from {@code from} to {@code to} as {@code from} measured it, or
     * {@link #UNKNOWN}. The scheduler never scores a plan whose sites have an unknown entry
     * between them or to a site of the workload, so {@link Scorer#score} needs no check;
     * a {@link Scorer#bound} may meet one (treating it as 0 keeps the bound safe).
     */
    long micros(int from, int to);
}
