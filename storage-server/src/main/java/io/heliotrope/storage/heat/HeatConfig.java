package io.heliotrope.storage.heat;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How much of the images' heat a site keeps (DESIGN.md section 4).
 *
 * @param halfLife how long a block's count takes to halve when it is not touched: one generation
 * @param trackedBlocks the most blocks counted per open image (2^20 = 4 GiB touched; blocks first
 *        touched past it are not counted), and the most a closed session keeps, hottest first
 * @param retention how long the heat of a closed session is kept
 * @param siteBlocks the most block numbers the closed sessions keep over all images; the oldest go first
 * @param startBlocks how many of the blocks a session touched first lead its heat, in the order it
 *        touched them: what an open needs before anything else (a file system's mount, a database's
 *        start and recovery), read once and so never hot. 4096 (16 MiB) by default: PostgreSQL
 *        moved with its heat alone started at the new holder 3 s later than with a pull in block
 *        order, which brings the file system's metadata first
 */
public record HeatConfig(Duration halfLife, int trackedBlocks, Duration retention, long siteBlocks, int startBlocks) {
    public static final HeatConfig DEFAULT = new HeatConfig(Duration.ofMinutes(5), 1 << 20, Duration.ofHours(1), 16L << 20, 4096);

    public HeatConfig {
        requireNonNull(halfLife, "halfLife is null");
        requireNonNull(retention, "retention is null");
        if (halfLife.toMillis() < 1 || trackedBlocks < 1 || siteBlocks < 1 || startBlocks < 0) {
            throw new IllegalArgumentException("halfLife, trackedBlocks and siteBlocks must be positive, startBlocks not negative");
        }
    }
}
