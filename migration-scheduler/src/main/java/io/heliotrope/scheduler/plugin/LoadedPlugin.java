package io.heliotrope.scheduler.plugin;

import io.heliotrope.scheduler.spi.Plugin;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/** The plugins one jar (or one directory of jars) offers, and the class loader they live in. */
record LoadedPlugin(String source, List<Plugin> plugins, PluginClassLoader classLoader) implements Closeable {
    LoadedPlugin {
        plugins = List.copyOf(plugins);
    }

    @Override
    public void close() throws IOException {
        classLoader.close();
    }
}
