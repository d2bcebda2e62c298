package io.heliotrope.controller.rtt;

import io.heliotrope.controller.Names;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code site} measured at {@code measuredEpochMillis}: the round-trip time to each
 * peer, in microseconds, the median of several probes (DESIGN.md section 7), and how often
 * the site measures ({@code probePeriodMillis}, 0 when it did not say: an entry older than
 * three periods is stale).
 */
public record RttRow(String site, long measuredEpochMillis, Map<String, Long> rttMicros, long probePeriodMillis) {
    /** Keeps a row, a few dozen bytes a peer, well inside one znode. */
    public static final int MAX_PEERS = 1024;

    public RttRow {
        Names.site(site);
        if (rttMicros.size() > MAX_PEERS) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "site " + site + " reports " + rttMicros.size()
                    + " peers, at most " + MAX_PEERS + " are allowed");
        }
        rttMicros.forEach((peer, micros) -> {
            Names.site(peer);
            if (micros < 0) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "site " + site + " reports a round trip of "
                        + Long.toUnsignedString(micros) + " us to " + peer + ", out of range");
            }
        });
        if (probePeriodMillis < 0) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "site " + site + " reports a probe period of "
                    + Long.toUnsignedString(probePeriodMillis) + " ms, out of range");
        }
        rttMicros = Map.copyOf(new TreeMap<>(rttMicros));
    }
}
