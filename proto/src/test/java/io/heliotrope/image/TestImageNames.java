package io.heliotrope.image;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestImageNames {
    @Test
    void acceptsLowercaseNamesStartingWithLetterOrDigit() {
        assertThat(ImageNames.check("vm-01.disk_a")).isEqualTo("vm-01.disk_a");
        assertThat(ImageNames.check("0")).isEqualTo("0");
        assertThat(ImageNames.check("a".repeat(63))).hasSize(63);
    }

    @Test
    void refusesWhatEitherSideRefused() {
        for (String name : new String[] {"", ".", "..", "-a", "_a", ".a", "Disk", "a/b", "a b", "a".repeat(64)}) {
            assertThatThrownBy(() -> ImageNames.check(name))
                    .hasMessage("invalid image name '" + name + "': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        assertThatThrownBy(() -> ImageNames.check(null)).hasMessageStartingWith("invalid image name 'null'");
    }
}
