package io.heliotrope.version;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestVersion {
    @Test
    void keepsTheEpochInTheHighHalfAndTheCounterInTheLow() {
        long encoded = Version.compose(3, 17);
        assertThat(encoded).isEqualTo(0x0000_0003_0000_0011L);
        assertThat(Version.epochOf(encoded)).isEqualTo(3);
        assertThat(Version.counterOf(encoded)).isEqualTo(17);
        assertThat(Version.of(encoded)).isEqualTo(new Version(3, 17)).hasToString("3.17");
        assertThat(Version.of(0)).isEqualTo(new Version(0, 0));
    }

    @Test
    void splitsTheLargestVersion() {
        long largest = Version.compose(Version.MAX_EPOCH, Version.MAX_COUNTER);
        assertThat(largest).isEqualTo(-1L);
        assertThat(Version.of(largest)).isEqualTo(new Version(Version.MAX_EPOCH, Version.MAX_COUNTER));
    }

    @Test
    void aLaterEpochOutranksAnyCounterOfAnEarlierOne() {
        assertThat(Version.compare(Version.compose(2, Version.MAX_COUNTER), Version.compose(3, 1))).isNegative();
        assertThat(Version.compare(Version.compose(3, 2), Version.compose(3, 1))).isPositive();
        assertThat(Version.compare(Version.compose(3, 1), Version.compose(3, 1))).isZero();
        assertThat(new Version(4, 0)).isGreaterThan(new Version(3, Version.MAX_COUNTER));
    }

    @Test
    void comparesEpochsThatSetTheSignBitAsLarger() {
        long high = Version.compose(1L << 31, 1);
        assertThat(high).isNegative();
        assertThat(Version.compare(high, Version.compose((1L << 31) - 1, Version.MAX_COUNTER))).isPositive();
        assertThat(Version.of(high)).isGreaterThan(new Version(1, 1));
    }

    @Test
    void leavesAQuarterOfTheCounterForTheNextEpochToArrive() {
        assertThat(Version.MAX_COUNTER - Version.COUNTER_NEAR_LIMIT).isEqualTo(1L << 30);
    }

    @Test
    void refusesEpochsAndCountersBeyond32Bits() {
        assertThatThrownBy(() -> Version.compose(Version.MAX_EPOCH + 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("epoch 4294967296 does not fit in 32 bits");
        assertThatThrownBy(() -> Version.compose(1, Version.MAX_COUNTER + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("counter 4294967296 does not fit in 32 bits");
        assertThatThrownBy(() -> new Version(-1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("epoch -1 does not fit in 32 bits");
    }
}
