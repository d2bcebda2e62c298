package io.heliotrope.storage.heat;

import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.peer.Peers.ImageRef;

import java.time.Clock;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The heat of each image's latest session here (DESIGN.md section 4), for the site that
 * opens the image next. A session open here answers with its live counts; once it closes,
 * its hottest blocks ({@link HeatConfig#trackedBlocks} at most) are kept, with the epoch
 * it closed at, for {@link HeatConfig#retention}, and the closed sessions keep at most
 * {@link HeatConfig#siteBlocks} blocks over all images, the oldest dropped first. A newer
 * session of the image replaces what the log had of it. Kept in memory only: a restart
 * forgets it, and a new holder after that pulls in its other orders.
 *
 * <p>Images are known by their identity, or by their name when they have none (a copy made
 * before identities), as the peer service finds them.
 */
public final class HeatLog {
    /** What a session knew of an image's heat: its epoch (0 for none) and blocks, hottest first. */
    public record Recorded(long epoch, long[] blocks) {
        public static final Recorded NONE = new Recorded(0, new long[0]);

        public Recorded {
            requireNonNull(blocks, "blocks is null");
        }
    }

    private sealed interface Entry permits Live, Frozen {}

    private record Live(BlockHeat heat, LongSupplier epoch) implements Entry {}

    private record Frozen(long epoch, long[] blocks, long closedAt) implements Entry {}

    private final LongSupplier millis;
    private final HeatConfig config;
    /** In the order of the opens and closes: the closed sessions from the oldest on. */
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private long frozenBlocks;

    public HeatLog(Clock clock) {
        this(requireNonNull(clock, "clock is null")::millis, HeatConfig.DEFAULT);
    }

    /** @param millis the time now, in milliseconds */
    HeatLog(LongSupplier millis, HeatConfig config) {
        this.millis = requireNonNull(millis, "millis is null");
        this.config = requireNonNull(config, "config is null");
    }

    /** Starts counting the heat of a session of {@code image}, whose current epoch {@code epoch} gives. */
    public BlockHeat open(ImageInfo image, LongSupplier epoch) {
        requireNonNull(epoch, "epoch is null");
        BlockHeat heat = new BlockHeat(millis, config);
        String key = key(image);
        synchronized (this) {
            remove(key);
            entries.put(key, new Live(heat, epoch));
        }
        return heat;
    }

    /** The session that counted {@code heat} closed at {@code epoch}: keeps its hottest blocks, unless a newer session replaced it. */
    public void close(ImageInfo image, BlockHeat heat, long epoch) {
        long[] hottest = heat.hottest(config.trackedBlocks());
        String key = key(image);
        synchronized (this) {
            if (!(entries.get(key) instanceof Live live) || live.heat() != heat) {
                return;
            }
            entries.remove(key);
            long now = millis.getAsLong();
            expire(now);
            entries.put(key, new Frozen(epoch, hottest, now));
            frozenBlocks += hottest.length;
            for (Iterator<Entry> oldest = entries.values().iterator(); frozenBlocks > config.siteBlocks() && oldest.hasNext(); ) {
                if (oldest.next() instanceof Frozen frozen) {
                    oldest.remove();
                    frozenBlocks -= frozen.blocks().length;
                }
            }
        }
    }

    /**
     * What the latest session here knew of {@code image}: at most {@code max} blocks, hottest
     * first; {@link Recorded#NONE} when the log has none, or only of a session of epoch
     * {@code belowEpoch} or later.
     */
    public Recorded heat(ImageRef image, long belowEpoch, int max) {
        Entry entry;
        synchronized (this) {
            expire(millis.getAsLong());
            entry = image.identity() == null ? null : entries.get(image.identity().toString());
            if (entry == null) {
                entry = entries.get(key(null, image.name()));
            }
        }
        if (entry instanceof Live live) {
            long epoch = live.epoch().getAsLong();
            return epoch < belowEpoch ? new Recorded(epoch, live.heat().hottest(max)) : Recorded.NONE;
        }
        if (entry instanceof Frozen frozen && frozen.epoch() < belowEpoch) {
            return new Recorded(frozen.epoch(), Arrays.copyOf(frozen.blocks(), Math.min(Math.max(0, max), frozen.blocks().length)));
        }
        return Recorded.NONE;
    }

    /** Blocks counted by the sessions open here, and kept of those closed. */
    public synchronized long trackedBlocks() {
        long tracked = frozenBlocks;
        for (Entry entry : entries.values()) {
            if (entry instanceof Live live) {
                tracked += live.heat().size();
            }
        }
        return tracked;
    }

    private void expire(long now) {
        for (Iterator<Entry> oldest = entries.values().iterator(); oldest.hasNext(); ) {
            if (oldest.next() instanceof Frozen frozen && now - frozen.closedAt() >= config.retention().toMillis()) {
                oldest.remove();
                frozenBlocks -= frozen.blocks().length;
            }
        }
    }

    private void remove(String key) {
        if (entries.remove(key) instanceof Frozen frozen) {
            frozenBlocks -= frozen.blocks().length;
        }
    }

    private static String key(ImageInfo image) {
        return key(image.identity() == null ? null : image.identity().toString(), image.name());
    }

    /** An image's identity, or its name (marked, so that no name reads as an identity) when it has none. */
    private static String key(String identity, String name) {
        return identity != null ? identity : "name:" + name;
    }
}
