package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.RttRow;
import io.heliotrope.proto.controller.v1.Site;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TestRttHistory {
    private static final Instant T0 = Instant.parse("2026-11-28T00:00:00Z");
    private static final List<Site> SITES = List.of(site("taiwan", 0), site("virginia", 2_000));

    @Test
    void takesTheMinimumOverTheWindowSoThatABusyPeerCannotInflateIt() {
        RttHistory history = new RttHistory(Duration.ofMinutes(2));
        history.add(matrix(row("virginia", T0, "taiwan", 75_000)));
        history.add(matrix(row("virginia", T0.plusSeconds(100), "taiwan", 140_000)));
        history.add(matrix(row("virginia", T0.plusSeconds(110), "taiwan", 82_000)));

        MeasuredRtt rtt = history.matrix(SITES, T0.plusSeconds(115));

        assertThat(rtt.name(0)).isEqualTo("taiwan");
        assertThat(rtt.micros(1, 0)).isEqualTo(75_000);
        // Out of the window, the 75 ms sample no longer counts.
        assertThat(history.matrix(SITES, T0.plusSeconds(125)).micros(1, 0)).isEqualTo(82_000);
    }

    @Test
    void theDiagonalIsTheIntraSiteSettingOneMillisecondUnlessSet() {
        MeasuredRtt rtt = new RttHistory(Duration.ofMinutes(2)).matrix(SITES, T0);

        assertThat(rtt.micros(0, 0)).isEqualTo(1_000);
        assertThat(rtt.micros(1, 1)).isEqualTo(2_000);
    }

    @Test
    void anEntryOlderThanThreeProbePeriodsIsUnknownWithItsAge() {
        RttHistory history = new RttHistory(Duration.ofMinutes(2));
        history.add(matrix(row("virginia", T0, "taiwan", 75_000)));

        assertThat(history.matrix(SITES, T0.plusSeconds(30)).micros(1, 0)).isEqualTo(75_000);
        MeasuredRtt stale = history.matrix(SITES, T0.plusSeconds(31));
        assertThat(stale.micros(1, 0)).isEqualTo(MeasuredRtt.UNKNOWN);
        assertThat(stale.unknown(1, 0)).hasValue("virginia measured taiwan 31 s ago, more than 3 probe periods of 10 s");
        assertThat(stale.unknown(0, 1)).hasValue("taiwan has not measured virginia");
        assertThat(stale.knownBothWays(0, 1)).isFalse();
    }

    @Test
    void aPeerMissingFromTheNewestRowGoesStaleWhileTheOthersStayFresh() {
        RttHistory history = new RttHistory(Duration.ofMinutes(2));
        List<Site> sites = List.of(site("oregon", 0), site("taiwan", 0), site("virginia", 0));
        history.add(matrix(RttRow.newBuilder().setSite("virginia").setMeasuredEpochMillis(T0.toEpochMilli()).setProbePeriodMillis(5_000)
                .addPeers(peer("taiwan", 75_000)).addPeers(peer("oregon", 60_000)).build()));
        history.add(matrix(RttRow.newBuilder().setSite("virginia").setMeasuredEpochMillis(T0.plusSeconds(15).toEpochMilli()).setProbePeriodMillis(5_000)
                .addPeers(peer("oregon", 61_000)).build()));

        MeasuredRtt rtt = history.matrix(sites, T0.plusSeconds(16));

        assertThat(rtt.micros(2, 0)).isEqualTo(60_000);
        assertThat(rtt.unknown(2, 1)).hasValue("virginia measured taiwan 16 s ago, more than 3 probe periods of 5 s");
    }

    private static Site site(String name, long intraMicros) {
        return Site.newBuilder().setName(name).setIntraSiteRttMicros(intraMicros).build();
    }

    private static RttMatrix matrix(RttRow row) {
        return RttMatrix.newBuilder().addRows(row).build();
    }

    private static RttRow row(String site, Instant at, String peer, long micros) {
        return RttRow.newBuilder().setSite(site).setMeasuredEpochMillis(at.toEpochMilli()).addPeers(peer(peer, micros)).build();
    }

    private static PeerRtt peer(String peer, long micros) {
        return PeerRtt.newBuilder().setPeer(peer).setRttMicros(micros).build();
    }
}
