package io.heliotrope.wan;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

class TestLinkConfig {
    @Test
    void commandLineRoundTripIsSplitIntoTwoOneWayDelays() {
        LinkConfig config = LinkConfig.parse("75ms", "1gbit");

        assertThat(config.oneWayDelay()).isEqualTo(Duration.ofMillis(75).dividedBy(2));
        assertThat(config.roundTrip()).isEqualTo(Duration.ofMillis(75));
        assertThat(config.bandwidthBitsPerSecond()).isEqualTo(1_000_000_000L);
        assertThat(config.windowBytes()).isEqualTo(6 * 1024 * 1024);
    }

    @Test
    void transmissionTakesBitsOverBandwidth() {
        assertThat(new LinkConfig(Duration.ZERO, 8_000_000).transmissionNanos(1000)).isEqualTo(1_000_000);
        assertThat(LinkConfig.parse("0ms", "1gbit").transmissionNanos(6 * 1024 * 1024)).isEqualTo(50_331_648);
        assertThat(LinkConfig.direct().transmissionNanos(Integer.MAX_VALUE)).isZero();
        // The largest chunk on the slowest link still fits in a long.
        assertThat(new LinkConfig(Duration.ZERO, 1000).transmissionNanos(Integer.MAX_VALUE))
                .isCloseTo(Integer.MAX_VALUE * 8_000_000L, withinPercentage(0.001));
    }

    @Test
    void rejectsImpossibleLinks() {
        assertThatThrownBy(() -> new LinkConfig(Duration.ofMillis(-1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("oneWayDelay must be between 0 and 1h: PT-0.001S");
        assertThatThrownBy(() -> new LinkConfig(Duration.ZERO, -5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bandwidthBitsPerSecond must be 0 (no cap) or at least 1kbit: -5");
        assertThatThrownBy(() -> LinkConfig.parse("10ms", "999bit"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bandwidthBitsPerSecond must be 0 (no cap) or at least 1kbit: 999");
        assertThatThrownBy(() -> LinkConfig.direct().withWindow(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("windowBytes must be positive: 0");
    }
}
