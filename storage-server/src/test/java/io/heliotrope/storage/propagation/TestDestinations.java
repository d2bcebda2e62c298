package io.heliotrope.storage.propagation;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TestDestinations {
    private final SplittableRandom random = new SplittableRandom(42);

    @Test
    void drawsSitesWithTheRowsProbabilities() {
        Destinations destinations = new Destinations("us-east", Map.of("us-east", 0.2, "us-west", 0.5, "eu-west", 0.3));

        Map<String, Integer> drawn = draw(destinations, 10_000);

        assertThat(drawn.keySet()).containsExactlyInAnyOrder("not now", "us-west", "eu-west");
        // Three standard deviations of 10,000 draws at p = 0.5 are 0.015.
        assertThat(drawn.get("not now") / 10_000.0).isCloseTo(0.2, within(0.015));
        assertThat(drawn.get("us-west") / 10_000.0).isCloseTo(0.5, within(0.015));
        assertThat(drawn.get("eu-west") / 10_000.0).isCloseTo(0.3, within(0.015));
    }

    @Test
    void scalesARowThatDoesNotSumToOneAndSkipsSitesWithoutAChance() {
        Destinations destinations = new Destinations("us-east", Map.of("us-west", 3.0, "eu-west", 1.0, "ap-south", 0.0));

        Map<String, Integer> drawn = draw(destinations, 10_000);

        assertThat(drawn.keySet()).containsExactlyInAnyOrder("us-west", "eu-west");
        assertThat(drawn.get("us-west") / 10_000.0).isCloseTo(0.75, within(0.015));
    }

    @Test
    void theCurrentSiteAloneOrAnEmptyRowMeansNoPushes() {
        Destinations stay = new Destinations("us-east", Map.of("us-east", 1.0));
        Destinations empty = new Destinations("us-east", Map.of());

        assertThat(stay.pushes()).isFalse();
        assertThat(empty.pushes()).isFalse();
        assertThat(draw(stay, 100)).containsOnlyKeys("not now");
        assertThat(draw(empty, 100)).containsOnlyKeys("not now");
    }

    @Test
    void aSeededGeneratorDrawsTheSameSites() {
        Map<String, Double> row = Map.of("a", 0.25, "b", 0.25, "c", 0.5);
        Destinations first = new Destinations("a", row);
        Destinations second = new Destinations("a", new HashMap<>(row));
        SplittableRandom again = new SplittableRandom(42);

        for (int i = 0; i < 1000; i++) {
            assertThat(first.sample(random)).isEqualTo(second.sample(again));
        }
    }

    private Map<String, Integer> draw(Destinations destinations, int times) {
        Map<String, Integer> drawn = new HashMap<>();
        for (int i = 0; i < times; i++) {
            String site = destinations.sample(random);
            drawn.merge(site == null ? "not now" : site, 1, Integer::sum);
        }
        return drawn;
    }
}
