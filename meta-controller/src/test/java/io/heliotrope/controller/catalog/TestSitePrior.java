package io.heliotrope.controller.catalog;

import io.heliotrope.controller.lease.LeaseMoves;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TestSitePrior {
    private static final Comparator<Double> APPROXIMATELY = (x, y) -> Math.abs(x - y) < 1e-12 ? 0 : Double.compare(x, y);

    @Test
    void withoutMovesEachSiteGoesToEveryOtherAlike() {
        TransitionTable prior = SitePrior.of(List.of("c", "a", "b"), List.of());

        assertThat(prior.sites()).containsExactly("a", "b", "c");
        assertThat(prior.row("a")).containsExactly(Map.entry("b", 0.5), Map.entry("c", 0.5));
        assertThat(prior.row("c")).containsExactly(Map.entry("a", 0.5), Map.entry("b", 0.5));
    }

    @Test
    void movesOfEveryImageLeanTheRowWhereTheyWent() {
        List<LeaseMoves> moves = List.of(
                new LeaseMoves("b", Map.of("a", Map.of("b", 3L))),
                new LeaseMoves("a", Map.of("a", Map.of("b", 1L, "c", 1L), "b", Map.of("a", 2L))));

        TransitionTable prior = SitePrior.of(List.of("a", "b", "c"), moves);

        assertThat(prior.row("a").keySet()).containsExactly("b", "c");
        assertThat(prior.row("a").values()).usingElementComparator(APPROXIMATELY).containsExactly(5 / 7.0, 2 / 7.0);
        assertThat(prior.row("b").values()).usingElementComparator(APPROXIMATELY).containsExactly(3 / 4.0, 1 / 4.0);
        assertThat(prior.row("c")).containsExactly(Map.entry("a", 0.5), Map.entry("b", 0.5));
    }

    @Test
    void onlyRegisteredSitesHaveRowsOrAreGoneTo() {
        List<LeaseMoves> moves = List.of(new LeaseMoves("gone", Map.of("a", Map.of("gone", 9L), "gone", Map.of("a", 4L))));

        TransitionTable prior = SitePrior.of(List.of("a", "b"), moves);

        assertThat(prior.sites()).containsExactly("a", "b");
        assertThat(prior.row("a")).containsExactly(Map.entry("b", 1.0));
        assertThat(SitePrior.of(List.of("a"), moves).row("a")).as("a site alone goes nowhere").isEmpty();
        assertThat(SitePrior.of(List.of(), moves)).isEqualTo(TransitionTable.EMPTY);
    }
}
