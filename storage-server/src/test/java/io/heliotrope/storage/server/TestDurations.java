package io.heliotrope.storage.server;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestDurations {
    @Test
    void parsesEveryUnit() {
        assertThat(Durations.parse("250us")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse(" 5s ")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Durations.parse("2M")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void refusesWhatIsNotADuration() {
        assertThatThrownBy(() -> Durations.parse("5"))
                .hasMessage("invalid duration '5': use a number with us, ms, s, m or h, like 5s");
        assertThatThrownBy(() -> Durations.parse("-1s")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Durations.parse("9999999999999999h")).hasMessage("invalid duration '9999999999999999h': too long");
    }
}
