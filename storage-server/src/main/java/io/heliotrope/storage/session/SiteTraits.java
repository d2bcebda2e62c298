package io.heliotrope.storage.session;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * What a site registers of itself for the scheduler's placements: the memory it gives its VMs
 * all together (0: no limit) and the round trip between two of its hosts, L(x, x) of the RTT matrix.
 */
public record SiteTraits(long vmMemoryBytes, Duration intraSiteRtt) {
    public static final SiteTraits DEFAULT = new SiteTraits(0, Duration.ofMillis(1));

    public SiteTraits {
        requireNonNull(intraSiteRtt, "intraSiteRtt is null");
        if (vmMemoryBytes < 0 || intraSiteRtt.isNegative() || intraSiteRtt.isZero()) {
            throw new IllegalArgumentException("VM memory must be 0 or more and the intra-site RTT positive: " + vmMemoryBytes + ", " + intraSiteRtt);
        }
    }
}
