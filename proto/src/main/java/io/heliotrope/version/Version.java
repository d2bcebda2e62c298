package io.heliotrope.version;

/**
 * The version of a block (DESIGN.md section 3): a lease epoch in the high 32 bits, a
 * counter in the low 32. Every write to a block gives it a larger version, and versions
 * are unique across write sessions: the controller grants each write lease with an epoch
 * larger than any before it, and the holder numbers its writes with a counter that only
 * grows under one epoch. Before the counter runs out ({@link #COUNTER_NEAR_LIMIT}) the
 * holder takes the next epoch of the lease it holds and starts the counter over, without
 * closing the image; the epochs from a grant to the latest such advance belong to one
 * holding, and what the holder wrote under any of them is its own to flush. Version 0
 * means never written.
 *
 * <p>On the wire and in storage a version is the {@code long} of {@link #encoded()}.
 * Compare such longs with {@link #compare}, as unsigned numbers: epochs from 2^31 on set
 * the sign bit.
 */
public record Version(long epoch, long counter) implements Comparable<Version> {
    public static final long MAX_EPOCH = 0xFFFF_FFFFL;
    public static final long MAX_COUNTER = 0xFFFF_FFFFL;
    /**
     * From this counter on, a writer takes its next epoch. The 2^30 writes left give the
     * controller 100 minutes to answer at 179K writes/s before writes would have to wait.
     */
    public static final long COUNTER_NEAR_LIMIT = MAX_COUNTER - (1L << 30);

    public Version {
        if (epoch < 0 || epoch > MAX_EPOCH) {
            throw new IllegalArgumentException("epoch " + epoch + " does not fit in 32 bits");
        }
        if (counter < 0 || counter > MAX_COUNTER) {
            throw new IllegalArgumentException("counter " + counter + " does not fit in 32 bits");
        }
    }

    /** The version a stored or sent {@code long} encodes. */
    public static Version of(long encoded) {
        return new Version(epochOf(encoded), counterOf(encoded));
    }

    /** The encoded version of {@code counter} under {@code epoch}; both must fit in 32 bits. */
    public static long compose(long epoch, long counter) {
        return new Version(epoch, counter).encoded();
    }

    public static long epochOf(long encoded) {
        return encoded >>> 32;
    }

    public static long counterOf(long encoded) {
        return encoded & MAX_COUNTER;
    }

    /** Orders encoded versions as their versions are ordered. */
    public static int compare(long a, long b) {
        return Long.compareUnsigned(a, b);
    }

    public long encoded() {
        return epoch << 32 | counter;
    }

    @Override
    public int compareTo(Version other) {
        return compare(encoded(), other.encoded());
    }

    /** {@code epoch.counter}, as logs and messages show a version. */
    @Override
    public String toString() {
        return epoch + "." + counter;
    }
}
