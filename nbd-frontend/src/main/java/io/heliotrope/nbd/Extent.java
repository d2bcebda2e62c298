package io.heliotrope.nbd;

/**
 * A run of bytes with one allocation state, as {@code base:allocation} reports it.
 * A hole reads as zeros unless {@code zero} is false (a hole over a base image).
 */
public record Extent(long length, boolean hole, boolean zero) {
    public Extent {
        if (length <= 0) {
            throw new IllegalArgumentException("length must be positive: " + length);
        }
    }

    public static Extent data(long length) {
        return new Extent(length, false, false);
    }

    public static Extent zeroHole(long length) {
        return new Extent(length, true, true);
    }

    public static Extent allocatedZeros(long length) {
        return new Extent(length, false, true);
    }
}
