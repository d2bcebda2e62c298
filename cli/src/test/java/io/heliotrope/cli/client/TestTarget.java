package io.heliotrope.cli.client;

import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static io.heliotrope.cli.client.Target.Kind.CONTROLLER;
import static io.heliotrope.cli.client.Target.Kind.SITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestTarget {
    private static final Map<String, String> ENV = Map.of("HELIO_CONTROLLER", "10.0.0.2:7400");

    @TempDir
    Path dir;

    @Test
    void theFlagComesFirstThenTheEnvironmentThenTheFileHelioUpWrote() {
        Path file = written("10.0.0.3:7400");

        assertThat(Target.resolve("10.0.0.1:7400", null, ENV, file)).isEqualTo(new Target(CONTROLLER, "10.0.0.1:7400", "from --controller"));
        assertThat(Target.resolve(null, null, ENV, file)).isEqualTo(new Target(CONTROLLER, "10.0.0.2:7400", "from HELIO_CONTROLLER"));
        assertThat(Target.resolve(null, null, Map.of("HELIO_CONTROLLER", " "), file))
                .isEqualTo(new Target(CONTROLLER, "10.0.0.3:7400", "from " + file + ", written by helio up"));
    }

    @Test
    void aSiteOnlyWhenNoControllerIsConfiguredOrWhenServerIsGiven() {
        Path none = dir.resolve("none.yaml");

        assertThat(Target.resolve(null, null, Map.of(), none))
                .isEqualTo(new Target(SITE, "127.0.0.1:7410", "the default, as no controller is configured"));
        assertThat(Target.resolve(null, "10.0.0.9:7410", ENV, written("10.0.0.3:7400")))
                .isEqualTo(new Target(SITE, "10.0.0.9:7410", "from --server"));
    }

    @Test
    void bothFlagsAreAMistake() {
        assertThatThrownBy(() -> Target.resolve("10.0.0.1:7400", "10.0.0.9:7410", Map.of(), dir.resolve("none.yaml")))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("give --controller or --server, not both");
    }

    @Test
    void aCommandThatNeedsAControllerTriesTheDefaultOneWhenNoneIsConfigured() {
        assertThat(Target.controller(null, Map.of(), dir.resolve("none.yaml")))
                .isEqualTo(new Target(CONTROLLER, "127.0.0.1:7400", "the default, as none is configured"));
        assertThat(Target.controller(null, ENV, dir.resolve("none.yaml")).address()).isEqualTo("10.0.0.2:7400");
    }

    @Test
    void messagesSayWhereTheAddressCameFrom() {
        assertThat(new Target(CONTROLLER, "10.0.0.2:7400", "from HELIO_CONTROLLER").describe())
                .isEqualTo("the controller at 10.0.0.2:7400 (from HELIO_CONTROLLER)");
        assertThat(new Target(SITE, "127.0.0.1:7410", "").describe()).isEqualTo("the site at 127.0.0.1:7410");
    }

    private Path written(String controller) {
        Path file = dir.resolve("client.yaml");
        new ClientConfig(controller).write(file);
        return file;
    }
}
