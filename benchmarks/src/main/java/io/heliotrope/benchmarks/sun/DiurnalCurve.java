package io.heliotrope.benchmarks.sun;

/**
 * A day of active users shaped like the paper's source trace (MSN connections, Chen et al.,
 * NSDI 2008, Fig. 5a): lowest before dawn (4:00), highest in the afternoon (16:00), the trough
 * {@link #TROUGH} of the peak, and a peak narrower than a cosine's (its power 1.5). Region
 * {@code r} sees the day shifted by {@code 12 h * r}, as the paper shifted the trace for
 * Taiwan: two regions in antiphase, equal at 10:00 and 22:00.
 */
final class DiurnalCurve {
    static final double TROUGH = 0.25;
    private static final double LOW_HOUR = 4;

    private DiurnalCurve() {}

    /** The fraction of the peak rate at {@code hour} of the trace (hours since Monday 0:00 in virginia) in {@code region}. */
    static double fraction(double hour, int region) {
        double local = hour + 12.0 * region - LOW_HOUR;
        double cycle = (1 - Math.cos(2 * Math.PI * local / 24)) / 2;
        return TROUGH + (1 - TROUGH) * Math.pow(cycle, 1.5);
    }
}
