package io.heliotrope.controller.metadata;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/** The materialized metadata of one image at one metaSeq; per-site counts are computed once, when first asked. */
public final class ImageView {
    /** Per site, the blocks whose latest version it holds; and the blocks whose latest version is a zero marker. */
    public record Counts(Map<String, Long> currentBlocks, long zeroBlocks) {}

    private final long incarnation;
    private final long metaSeq;
    private final BlockEntries entries;
    private Counts counts;

    ImageView(long incarnation, long metaSeq, BlockEntries entries) {
        this.incarnation = incarnation;
        this.metaSeq = metaSeq;
        this.entries = requireNonNull(entries, "entries is null");
    }

    /** Tells this image from an earlier one of the same name (the creation zxid of its config). */
    long incarnation() {
        return incarnation;
    }

    public long metaSeq() {
        return metaSeq;
    }

    public BlockEntries entries() {
        return entries;
    }

    public synchronized Counts counts() {
        if (counts == null) {
            long[] byHolder = entries.countByHolder();
            Map<String, Long> current = new TreeMap<>();
            for (int holder = 1; holder < byHolder.length; holder++) {
                if (byHolder[holder] > 0) {
                    current.put(entries.sites().get(holder - 1), byHolder[holder]);
                }
            }
            counts = new Counts(Collections.unmodifiableMap(current), byHolder[0]);
        }
        return counts;
    }
}
