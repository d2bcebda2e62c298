package io.heliotrope.cli.print;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSizes {
    @Test
    void parsesPlainNumbersAndBinarySuffixes() {
        assertThat(Sizes.parse("4096")).isEqualTo(4096);
        assertThat(Sizes.parse("256M")).isEqualTo(256L << 20);
        assertThat(Sizes.parse("1g")).isEqualTo(1L << 30);
        assertThat(Sizes.parse("2TiB")).isEqualTo(2L << 40);
        assertThat(Sizes.parse(" 8 KB ")).isEqualTo(8L << 10);
    }

    @Test
    void refusesWhatIsNotASize() {
        assertThatThrownBy(() -> Sizes.parse("abc"))
                .isInstanceOf(TypeConversionException.class)
                .hasMessage("invalid size 'abc': use a number with an optional K, M, G, T or P suffix");
        assertThatThrownBy(() -> Sizes.parse("-5M")).hasMessageStartingWith("invalid size '-5M'");
        assertThatThrownBy(() -> Sizes.parse("99999999P")).hasMessage("size '99999999P' is too large");
    }

    @Test
    void formatsForPeople() {
        assertThat(Sizes.format(512)).isEqualTo("512 B");
        assertThat(Sizes.format(256L << 20)).isEqualTo("256.0 MiB");
        assertThat(Sizes.format(3L << 29)).isEqualTo("1.5 GiB");
    }
}
