package io.heliotrope.controller.metadata;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What a site lacks to reach {@code metaSeq}: a snapshot to replace what it has cached
 * (when it is too far behind, or ahead of a recreated image), then deltas to apply in order.
 */
public record Changes(long metaSeq, Optional<BlockEntries> snapshot, List<BlockEntries> deltas) {
    public Changes {
        requireNonNull(snapshot, "snapshot is null");
        deltas = List.copyOf(deltas);
    }

    /** Nothing to apply: the site stays at {@code metaSeq}. */
    public static Changes none(long metaSeq) {
        return new Changes(metaSeq, Optional.empty(), List.of());
    }
}
