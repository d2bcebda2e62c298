package io.heliotrope.it;

import io.heliotrope.version.Version;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/** The metadata one flush commits: block -> version and holder, in the order they are sent. */
final class Delta {
    private final Map<Long, BlockVersion> entries;

    private Delta(Map<Long, BlockVersion> entries) {
        this.entries = Collections.unmodifiableMap(entries);
    }

    /** Blocks {@code first .. first + count - 1}, all at {@code version} on {@code site}. */
    static Delta range(long first, int count, String site, long version) {
        Map<Long, BlockVersion> entries = new LinkedHashMap<>();
        for (long block = first; block < first + count; block++) {
            entries.put(block, new BlockVersion(version, site));
        }
        return new Delta(entries);
    }

    /**
     * {@code count} distinct random blocks below {@code imageBlocks} as one write session
     * of {@code site} under {@code epoch} leaves them: 1 to 4 writes each, one in 50 trimmed.
     */
    static Delta random(Random random, int count, long imageBlocks, String site, long epoch) {
        Map<Long, BlockVersion> entries = new LinkedHashMap<>();
        while (entries.size() < count) {
            long version = Version.compose(epoch, 1 + random.nextInt(4));
            entries.putIfAbsent(random.nextLong(imageBlocks), random.nextInt(50) == 0 ? BlockVersion.zero(version) : new BlockVersion(version, site));
        }
        return new Delta(entries);
    }

    Map<Long, BlockVersion> entries() {
        return entries;
    }

    int size() {
        return entries.size();
    }

    /** How many of this delta's entries {@code visible} shows exactly. */
    long countVisibleIn(Map<Long, BlockVersion> visible) {
        return entries.entrySet().stream().filter(entry -> entry.getValue().equals(visible.get(entry.getKey()))).count();
    }
}
