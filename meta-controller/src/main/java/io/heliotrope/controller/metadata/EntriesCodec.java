package io.heliotrope.controller.metadata;

import io.heliotrope.version.Version;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;

import static io.heliotrope.controller.metadata.InflatingReader.corrupt;

/**
 * The compact binary form of {@link BlockEntries} kept in ZooKeeper: one zlib stream of
 * <pre>
 * format (1), entry count, site count, per site: name length and UTF-8 name,
 * blocks:   first block, then each gap minus one
 * epochs:   the version's epoch, zig-zag difference to the previous entry's (starting from 0)
 * counters: the version's counter
 * holders:  0 for a zero marker, else the 1-based site index
 * </pre>
 * all as unsigned LEB128 varints, one column after another (see {@link Version}). In one
 * delta nearly all versions share an epoch and have small counters, so the epoch column
 * is a run of zeros, counters and holders take a byte each, dense blocks a byte a gap,
 * and deflate squeezes the repetition out of all of them.
 */
public final class EntriesCodec {
    /** How hard deflate tries: flushes are on a writer's critical path, snapshots are not. */
    public enum Effort {
        FAST(Deflater.BEST_SPEED),
        SMALL(Deflater.DEFAULT_COMPRESSION);

        private final int level;

        Effort(int level) {
            this.level = level;
        }
    }

    private static final int FORMAT = 1;
    private static final int MAX_SITES = 1 << 16;
    private static final int MAX_NAME_BYTES = 1024;
    /** Deflate expands at most 1032 times and an entry takes at least four raw bytes. */
    private static final long MAX_ENTRIES_PER_BYTE = 260;

    private EntriesCodec() {}

    public static byte[] encode(BlockEntries entries, Effort effort) {
        int n = entries.size();
        try (DeflatingWriter out = new DeflatingWriter(effort.level)) {
            out.writeVarint(FORMAT);
            out.writeVarint(n);
            out.writeVarint(entries.sites().size());
            for (String site : entries.sites()) {
                byte[] name = site.getBytes(StandardCharsets.UTF_8);
                out.writeVarint(name.length);
                out.writeBytes(name);
            }
            long previous = -1;
            for (int i = 0; i < n; i++) {
                out.writeVarint(entries.block(i) - previous - 1);
                previous = entries.block(i);
            }
            long epoch = 0;
            for (int i = 0; i < n; i++) {
                long next = Version.epochOf(entries.version(i));
                long change = next - epoch;
                out.writeVarint((change << 1) ^ (change >> 63));
                epoch = next;
            }
            for (int i = 0; i < n; i++) {
                out.writeVarint(Version.counterOf(entries.version(i)));
            }
            for (int i = 0; i < n; i++) {
                out.writeVarint(entries.holder(i));
            }
            return out.finish();
        }
    }

    public static BlockEntries decode(byte[] data) {
        try (InflatingReader in = new InflatingReader(data)) {
            long format = in.readVarint();
            if (format != FORMAT) {
                throw corrupt("unknown format " + format);
            }
            long count = in.readVarint();
            if (count < 0 || count > MAX_ENTRIES_PER_BYTE * data.length) {
                throw corrupt(Long.toUnsignedString(count) + " entries in " + data.length + " bytes");
            }
            int n = (int) count;
            List<String> sites = readSites(in);
            long[] blocks = new long[n];
            long previous = -1;
            for (int i = 0; i < n; i++) {
                long block = previous + 1 + in.readVarint();
                if (i > 0 && block <= previous) {
                    throw corrupt("blocks out of order at entry " + i);
                }
                blocks[i] = block;
                previous = block;
            }
            long[] versions = new long[n];
            long epoch = 0;
            for (int i = 0; i < n; i++) {
                long zigzag = in.readVarint();
                epoch += (zigzag >>> 1) ^ -(zigzag & 1);
                if (epoch > Version.MAX_EPOCH || epoch < 0) {
                    throw corrupt("a version epoch over 32 bits at entry " + i);
                }
                versions[i] = epoch;
            }
            for (int i = 0; i < n; i++) {
                long counter = in.readVarint();
                if (counter > Version.MAX_COUNTER || counter < 0) {
                    throw corrupt("a version counter over 32 bits at entry " + i);
                }
                versions[i] = Version.compose(versions[i], counter);
            }
            int[] holders = new int[n];
            for (int i = 0; i < n; i++) {
                long holder = in.readVarint();
                if (holder < 0 || holder > sites.size()) {
                    throw corrupt("holder " + Long.toUnsignedString(holder) + " of " + sites.size() + " sites at entry " + i);
                }
                holders[i] = (int) holder;
            }
            in.expectEnd();
            return new BlockEntries(sites, blocks, versions, holders);
        }
    }

    private static List<String> readSites(InflatingReader in) {
        long count = in.readVarint();
        if (count < 0 || count > MAX_SITES) {
            throw corrupt(Long.toUnsignedString(count) + " sites");
        }
        List<String> sites = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            long length = in.readVarint();
            if (length < 0 || length > MAX_NAME_BYTES) {
                throw corrupt("a site name of " + Long.toUnsignedString(length) + " bytes");
            }
            sites.add(new String(in.readBytes((int) length), StandardCharsets.UTF_8));
        }
        return sites;
    }
}
