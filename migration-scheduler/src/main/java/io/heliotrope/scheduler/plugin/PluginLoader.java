package io.heliotrope.scheduler.plugin;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.spi.Plugin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static io.heliotrope.error.ErrorCode.INVALID_ARGUMENT;

/**
 * Loads the plugins of a plugins directory: each {@code *.jar} directly in it is one plugin,
 * each subdirectory is one plugin made of all the jars in it (a plugin and its dependencies).
 * Each gets a {@link PluginClassLoader} of its own, in which {@link ServiceLoader} finds its
 * {@link Plugin}s. Other files are ignored; a missing directory holds no plugins.
 *
 * <p>A plugin that cannot be loaded fails the whole load, and with it the scheduler's start:
 * an operator who drops a broken jar (or one built against another SPI) learns it at once,
 * from the command that starts the controller, instead of from an application that later
 * names a policy that is silently missing and never moves. Every such failure is a
 * {@link HeliotropeException} ({@code INVALID_ARGUMENT}) whose message starts with
 * {@code plugin <jar or directory>:} and says what went wrong.
 */
final class PluginLoader {
    private static final String SERVICE_FILE = "META-INF/services/" + Plugin.class.getName();

    private PluginLoader() {}

    /** The plugins of {@code dir}, in the order of their file names. */
    static List<LoadedPlugin> load(Path dir) {
        if (!Files.exists(dir)) {
            return List.of();
        }
        List<LoadedPlugin> loaded = new ArrayList<>();
        try {
            for (Path plugin : list(dir)) {
                if (Files.isDirectory(plugin)) {
                    loaded.add(load(plugin, list(plugin).stream().filter(PluginLoader::isJar).toList()));
                } else if (isJar(plugin)) {
                    loaded.add(load(plugin, List.of(plugin)));
                }
            }
            return List.copyOf(loaded);
        } catch (RuntimeException e) {
            closeAll(loaded, e);
            throw e;
        }
    }

    /**
     * Calls into a plugin: what it throws (an exception, an error such as the
     * {@code NoClassDefFoundError} of a missing dependency, or {@link ServiceLoader}'s error
     * around either) fails the load, naming the call and the plugin's own exception.
     */
    static <T> T call(String source, String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException | LinkageError | ServiceConfigurationError e) {
            Throwable cause = e instanceof ServiceConfigurationError && e.getCause() != null ? e.getCause() : e;
            throw failure(source, what + " failed: " + cause, e);
        }
    }

    static HeliotropeException failure(String source, String message, Throwable cause) {
        return new HeliotropeException(INVALID_ARGUMENT, "plugin " + source + ": " + message, cause);
    }

    static void closeAll(List<LoadedPlugin> plugins, Throwable failure) {
        for (LoadedPlugin plugin : plugins) {
            try {
                plugin.close();
            } catch (IOException e) {
                failure.addSuppressed(e);
            }
        }
    }

    private static LoadedPlugin load(Path path, List<Path> jars) {
        String source = path.toString();
        List<URL> urls = new ArrayList<>();
        for (Path jar : jars) {
            checkJar(source, path, jar);
            urls.add(url(jar));
        }
        PluginClassLoader classLoader = new PluginClassLoader(source, urls, PluginLoader.class.getClassLoader());
        try {
            List<Plugin> plugins = call(source, "reading " + SERVICE_FILE,
                    () -> ServiceLoader.load(Plugin.class, classLoader).stream().toList())
                    .stream()
                    .map(provider -> call(source, provider.type().getName() + "()", provider::get))
                    .toList();
            if (plugins.isEmpty()) {
                throw failure(source, "no " + SERVICE_FILE + " in its jars", null);
            }
            return new LoadedPlugin(source, plugins, classLoader);
        } catch (RuntimeException e) {
            try {
                classLoader.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    private static void checkJar(String source, Path plugin, Path jar) {
        try {
            // opening it reads its central directory: enough to tell a jar from anything else
            new JarFile(jar.toFile()).close();
        } catch (IOException e) {
            String what = jar.equals(plugin) ? "not a jar file" : jar.getFileName() + " is not a jar file";
            throw failure(source, what + " (" + e.getMessage() + ")", e);
        }
    }

    private static boolean isJar(Path file) {
        return Files.isRegularFile(file) && file.getFileName().toString().endsWith(".jar");
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list plugins in " + dir, e);
        }
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(jar + " has no URL", e);
        }
    }
}
