package io.heliotrope.scheduler.plugin;

import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.heliotrope.error.ErrorCode.INVALID_ARGUMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every plugin that cannot be loaded fails the load, naming its file and the cause. */
final class TestPluginLoader {
    private static final String BROKEN = "throw new IllegalStateException(\"broken on purpose\");";

    @TempDir
    Path plugins;

    @Test
    void aFileThatIsNotAJar() throws IOException {
        Files.writeString(plugins.resolve("notes.jar"), "a jar? no: a text file of some length");

        assertRefused("plugin " + plugins.resolve("notes.jar") + ": not a jar file (zip END header not found)");
    }

    @Test
    void aFileThatIsNotAJarInAPluginsDirectory() throws IOException {
        Path dir = TestingPlugins.withLibrary(plugins.resolve("nearby"));
        Files.writeString(dir.resolve("notes.jar"), "a jar? no: a text file of some length");

        assertRefused("plugin " + dir + ": notes.jar is not a jar file (zip END header not found)");
    }

    @Test
    void aJarWithoutAPluginService() throws IOException {
        Path jar = TestingPlugins.withoutService(plugins.resolve("unnamed.jar"));

        assertRefused("plugin " + jar + ": no META-INF/services/io.heliotrope.scheduler.spi.Plugin in its jars");
    }

    @Test
    void aServiceFileNamingAMissingClass() throws IOException {
        Path jar = TestingPluginJar.write(plugins.resolve("missing.jar"),
                Map.of("example.Other", "package example; public final class Other {}"), List.of("example.Missing"));

        assertRefused("plugin " + jar + ": reading META-INF/services/io.heliotrope.scheduler.spi.Plugin failed: "
                + "java.util.ServiceConfigurationError: io.heliotrope.scheduler.spi.Plugin: Provider example.Missing not found");
    }

    @Test
    void aPluginWhoseConstructorThrows() throws IOException {
        Path jar = TestingPlugins.broken(plugins.resolve("broken.jar"), BROKEN, "return List.of();");

        assertRefused("plugin " + jar + ": example.Broken() failed: java.lang.IllegalStateException: broken on purpose");
    }

    @Test
    void aPluginWhosePoliciesThrows() throws IOException {
        Path jar = TestingPlugins.broken(plugins.resolve("broken.jar"), "", BROKEN);

        assertRefused("plugin " + jar + ": example.Broken.policies() failed: java.lang.IllegalStateException: broken on purpose");
    }

    @Test
    void aPluginMissingADependency() throws IOException {
        Path dir = TestingPlugins.withLibrary(plugins.resolve("nearby"));
        Files.delete(dir.resolve("lib.jar"));

        assertRefused("plugin " + dir + ": example.Closest.description() failed: java.lang.NoClassDefFoundError: lib/Description");
    }

    @Test
    void aPolicyWithAnInvalidName() throws IOException {
        Path jar = TestingPlugins.closest(plugins.resolve("closest.jar"), "Closest");

        assertRefused("plugin " + jar + ": invalid policy name 'Closest' (example.Closest): it must match [a-z][a-z0-9-]*");
    }

    private void assertRefused(String message) {
        assertThatThrownBy(() -> Policies.load(List.of(), plugins))
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(INVALID_ARGUMENT))
                .hasMessage(message);
    }
}
