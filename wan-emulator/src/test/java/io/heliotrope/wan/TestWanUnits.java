package io.heliotrope.wan;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestWanUnits {
    @Test
    void parsesDurations() {
        assertThat(WanUnits.parseDuration("75ms")).isEqualTo(Duration.ofMillis(75));
        assertThat(WanUnits.parseDuration("37.5ms")).isEqualTo(Duration.ofNanos(37_500_000));
        assertThat(WanUnits.parseDuration("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(WanUnits.parseDuration(" 250 US ")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(WanUnits.parseDuration("0ns")).isEqualTo(Duration.ZERO);
    }

    @Test
    void parsesBitRatesInDecimalUnits() {
        assertThat(WanUnits.parseBitRate("1gbit")).isEqualTo(1_000_000_000L);
        assertThat(WanUnits.parseBitRate("100mbit")).isEqualTo(100_000_000L);
        assertThat(WanUnits.parseBitRate("500kbit")).isEqualTo(500_000L);
        assertThat(WanUnits.parseBitRate("2.5Gbit")).isEqualTo(2_500_000_000L);
        assertThat(WanUnits.parseBitRate("0bit")).isZero();
    }

    @Test
    void parsesSizesInBinaryUnits() {
        assertThat(WanUnits.parseBytes("6MiB")).isEqualTo(6 * 1024 * 1024);
        assertThat(WanUnits.parseBytes("64kib")).isEqualTo(64 * 1024);
        assertThat(WanUnits.parseBytes("1500")).isEqualTo(1500);
        assertThat(WanUnits.parseBytes("1500B")).isEqualTo(1500);
    }

    @Test
    void rejectsWhatItCannotRead() {
        assertThatThrownBy(() -> WanUnits.parseDuration("75"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid duration '75': expected a number followed by ns, us, ms or s");
        assertThatThrownBy(() -> WanUnits.parseBitRate("1gb"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid bit rate '1gb': expected a number followed by bit, kbit, mbit or gbit");
        assertThatThrownBy(() -> WanUnits.parseBytes("-1MiB"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid size '-1MiB': expected a number followed by B, KiB, MiB or GiB");
        assertThatThrownBy(() -> WanUnits.parseBytes("2GiB"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("size 2GiB is larger than 2 GiB");
        assertThatThrownBy(() -> WanUnits.parseBitRate("99999999999999gbit"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bit rate '99999999999999gbit' is too large");
    }
}
