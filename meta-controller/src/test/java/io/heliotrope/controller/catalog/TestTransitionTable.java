package io.heliotrope.controller.catalog;

import io.heliotrope.controller.lease.LeaseMoves;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TestTransitionTable {
    private static final TransitionTable HINT = new TransitionTable(List.of("a", "b"), List.of(0.1, 0.9, 0.0, 0.0));

    @Test
    void aRowOfZerosIsNoRow() {
        assertThat(HINT.row("a")).containsExactly(Map.entry("a", 0.1), Map.entry("b", 0.9));
        assertThat(HINT.row("b")).isEmpty();
        assertThat(HINT.row("elsewhere")).isEmpty();
    }

    @Test
    void withoutMovesTheHintIsTheTable() {
        assertThat(HINT.blend(LeaseMoves.NONE)).isEqualTo(HINT);
        assertThat(TransitionTable.EMPTY.blend(LeaseMoves.NONE)).isEqualTo(TransitionTable.EMPTY);
    }

    @Test
    void aHintRowWeighsAsMuchAsTenMovesAndRowsOnlyObservedAppear() {
        LeaseMoves moves = new LeaseMoves("c", Map.of("a", Map.of("b", 3L, "c", 2L), "b", Map.of("a", 4L)));

        TransitionTable blended = HINT.blend(moves);

        assertThat(blended.sites()).containsExactly("a", "b", "c");
        assertThat(blended.probabilities().stream().mapToDouble(Double::doubleValue).toArray()).containsExactly(
                new double[] {1 / 15.0, 12 / 15.0, 2 / 15.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0}, within(1e-12));
        assertThat(blended.row("c")).isEmpty();
    }

    @Test
    void observedMovesOutweighTheHintAsTheyAddUp() {
        LeaseMoves moves = LeaseMoves.NONE;
        for (int i = 0; i < 90; i++) {
            moves = moves.grantedTo("a").grantedTo("a").grantedTo("c");
        }

        assertThat(moves.from("a")).containsExactly(Map.entry("c", 90L));
        assertThat(moves.from("c")).containsExactly(Map.entry("a", 89L));
        assertThat(HINT.blend(moves).row("a")).containsExactly(Map.entry("a", 0.01), Map.entry("b", 0.09), Map.entry("c", 0.9));
    }

    @Test
    void aSiteWithoutARowGetsThePriorsAndOnlyThatSite() {
        TransitionTable prior = SitePrior.of(List.of("a", "b", "c"), List.of());
        LeaseMoves moves = new LeaseMoves("a", Map.of("c", Map.of("a", 1L)));

        TransitionTable.Filled filled = HINT.blend(moves).withDefaultRows(prior);

        assertThat(filled.table().sites()).containsExactly("a", "b", "c");
        assertThat(filled.table().row("a")).as("a hint row stays").isEqualTo(HINT.row("a"));
        assertThat(filled.table().row("c")).as("an observed row stays").containsExactly(Map.entry("a", 1.0));
        assertThat(filled.table().row("b")).containsExactly(Map.entry("a", 0.5), Map.entry("c", 0.5));
        assertThat(filled.defaultRows()).containsExactly("b");
    }

    @Test
    void aRowStayingPutIsARowAndAPriorWithoutARowFillsNothing() {
        TransitionTable stay = new TransitionTable(List.of("a", "b"), List.of(1.0, 0.0, 0.0, 0.0));

        TransitionTable.Filled filled = stay.withDefaultRows(SitePrior.of(List.of("a", "b"), List.of()));

        assertThat(filled.table().row("a")).containsExactly(Map.entry("a", 1.0));
        assertThat(filled.table().row("b")).containsExactly(Map.entry("a", 1.0));
        assertThat(filled.defaultRows()).containsExactly("b");
        assertThat(TransitionTable.EMPTY.withDefaultRows(SitePrior.of(List.of("a"), List.of())))
                .isEqualTo(new TransitionTable.Filled(new TransitionTable(List.of("a"), List.of(0.0)), List.of()));
        assertThat(HINT.withDefaultRows(TransitionTable.EMPTY)).isEqualTo(new TransitionTable.Filled(HINT, List.of()));
    }
}
