package io.heliotrope.scheduler.plugin;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.heliotrope.scheduler.spi.Application;
import io.heliotrope.scheduler.spi.Policy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a plugin's code can reach: the SPI, Jackson's annotations and the JDK from the host, all else its own. */
final class TestPluginClassLoader {
    @TempDir
    static Path plugins;
    private static Policies policies;
    private static Policy<?> closest;

    @BeforeAll
    static void load() throws IOException {
        TestingPlugins.closest(plugins.resolve("closest.jar"), "closest");
        TestingPlugins.closest(plugins.resolve("nearest.jar"), "nearest");
        policies = Policies.load(List.of(), plugins);
        closest = policies.policy("closest");
    }

    @AfterAll
    static void close() throws IOException {
        policies.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "io.heliotrope.scheduler.placement.PlanOrder",
            "io.heliotrope.scheduler.plugin.Policies",
            "io.heliotrope.error.HeliotropeException",
            "com.fasterxml.jackson.databind.JsonNode",
            "org.slf4j.Logger"})
    void aPluginCannotLoadTheHostsOtherClasses(String hostClass) {
        assertThatThrownBy(() -> closest.validate(probe(hostClass)))
                .isInstanceOf(IllegalArgumentException.class)
                .cause().isInstanceOf(ClassNotFoundException.class).hasMessage(hostClass);
    }

    @ParameterizedTest
    @ValueSource(strings = {"io.heliotrope.scheduler.spi.Verdict", "com.fasterxml.jackson.annotation.JsonAlias", "java.time.Duration"})
    void aPluginLoadsTheSpiJacksonsAnnotationsAndTheJdk(String shared) {
        closest.validate(probe(shared));
    }

    @Test
    void theSharedClassesAreTheHostsOwn() throws ClassNotFoundException {
        ClassLoader loader = closest.getClass().getClassLoader();

        assertThat(loader).isInstanceOf(PluginClassLoader.class);
        assertThat(loader.loadClass(Policy.class.getName())).isSameAs(Policy.class);
        assertThat(loader.loadClass(JsonProperty.class.getName())).isSameAs(JsonProperty.class);
    }

    @Test
    void aPluginsClassNamedAsOneOfTheHostsIsItsOwn() throws ClassNotFoundException {
        Class<?> mapper = closest.getClass().getClassLoader().loadClass(ObjectMapper.class.getName());

        assertThat(mapper).isNotSameAs(ObjectMapper.class);
        assertThat(mapper.getClassLoader()).isSameAs(closest.getClass().getClassLoader());
        assertThat(closest.description()).isEqualTo("the plugin's own ObjectMapper");
    }

    @Test
    void eachPluginHasAClassLoaderOfItsOwn() {
        Class<?> nearest = policies.policy("nearest").getClass();

        assertThat(nearest.getName()).isEqualTo(closest.getClass().getName());
        assertThat(nearest.getClassLoader()).isNotSameAs(closest.getClass().getClassLoader());
    }

    private static Application probe(String className) {
        return new Application("web", List.of("web1"), -1, Map.of("probe", className));
    }
}
