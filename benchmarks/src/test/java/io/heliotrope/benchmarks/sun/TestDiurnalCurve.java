package io.heliotrope.benchmarks.sun;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TestDiurnalCurve {
    @Test
    void aRegionPeaksInItsAfternoonAndIsLowestBeforeDawn() {
        assertThat(DiurnalCurve.fraction(16, 0)).isCloseTo(1.0, within(1e-9));
        assertThat(DiurnalCurve.fraction(4, 0)).isCloseTo(DiurnalCurve.TROUGH, within(1e-9));
        for (double hour = 0; hour < 24; hour += 0.5) {
            assertThat(DiurnalCurve.fraction(hour, 0)).isBetween(DiurnalCurve.TROUGH, 1.0);
        }
    }

    @Test
    void theTwoRegionsAreInAntiphaseAndEqualAtTenAndTwentyTwo() {
        for (double hour = 0; hour < 48; hour += 1.5) {
            assertThat(DiurnalCurve.fraction(hour, 1)).isCloseTo(DiurnalCurve.fraction(hour + 12, 0), within(1e-9));
        }
        assertThat(DiurnalCurve.fraction(10, 0)).isCloseTo(DiurnalCurve.fraction(10, 1), within(1e-9));
        assertThat(DiurnalCurve.fraction(22, 0)).isCloseTo(DiurnalCurve.fraction(22, 1), within(1e-9));
        assertThat(DiurnalCurve.fraction(16, 0)).isGreaterThan(DiurnalCurve.fraction(16, 1));
    }
}
