package io.heliotrope.cli.image;

import io.heliotrope.proto.controller.v1.TransitionTable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestTransitions {
    @Test
    void pairsBecomeASquareTableInTheOrderSitesAppear() {
        TransitionTable table = Transitions.parse("virginia:taiwan=0.9, virginia:virginia=0.1,taiwan:virginia=1");

        assertThat(table.getSitesList()).containsExactly("virginia", "taiwan");
        assertThat(table.getProbabilitiesList()).containsExactly(0.1, 0.9, 1.0, 0.0);
    }

    @Test
    void aSiteNamedOnlyAsADestinationHasNoRowAndNoneIsTheEmptyTable() {
        TransitionTable table = Transitions.parse("virginia:taiwan=0.9,virginia:virginia=0.1");

        assertThat(table.getProbabilitiesList()).containsExactly(0.1, 0.9, 0.0, 0.0);
        assertThat(Transitions.parse("none")).isEqualTo(TransitionTable.getDefaultInstance());
        assertThat(printed(table)).isEqualTo(String.join("\n",
                "  FROM\\TO   virginia    taiwan",
                "  virginia     0.100     0.900",
                "  taiwan           -         -", ""));
    }

    @Test
    void refusesWhatIsNotATransition() {
        for (String bad : List.of("virginia=0.9", "virginia:taiwan", ":taiwan=1", "a:b=1,,", "a:b:c=1")) {
            assertThatThrownBy(() -> Transitions.parse(bad)).isInstanceOf(TypeConversionException.class)
                    .hasMessageStartingWith("invalid transition '").hasMessageEndingWith("': use FROM:TO=P, for example virginia:taiwan=0.9");
        }
        assertThatThrownBy(() -> Transitions.parse("a:b=lots")).hasMessage("invalid probability in 'a:b=lots': use a number between 0 and 1");
        assertThatThrownBy(() -> Transitions.parse("a:b=0.5,a:b=0.5")).hasMessage("transition a:b is given twice");
    }

    private static String printed(TransitionTable table) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Transitions.print(new PrintStream(bytes, true, UTF_8), table);
        return bytes.toString(UTF_8);
    }
}
