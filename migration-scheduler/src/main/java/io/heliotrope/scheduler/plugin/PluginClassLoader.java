package io.heliotrope.scheduler.plugin;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The class loader of one plugin (Trino's {@code PluginClassLoader} is the model). Its parent
 * is the JDK's platform loader; the host's loader is asked only for the packages plugins share
 * with the host, so that a plugin sees the SPI classes the scheduler calls it with and nothing
 * else of Heliotrope's or of its libraries. Everything else resolves in the JDK, then in the
 * plugin's own jars: a plugin's Jackson or Guava is its own, whatever version the host or
 * another plugin uses.
 *
 * <p>Shared packages: {@code io.heliotrope.scheduler.spi}, and {@code
 * com.fasterxml.jackson.annotation}, because the host's Jackson maps a report onto the
 * plugin's workload type: it honours an annotation ({@code @JsonProperty}, {@code
 * @JsonAlias}) only when the annotation's class is its own, so a plugin that bundled its own
 * copy would see its annotations silently ignored. Annotations are all that package holds.
 */
final class PluginClassLoader extends URLClassLoader {
    private static final List<String> SHARED_PACKAGES = List.of(
            "io.heliotrope.scheduler.spi.",
            "com.fasterxml.jackson.annotation.");

    static {
        registerAsParallelCapable();
    }

    private final ClassLoader host;

    PluginClassLoader(String source, List<URL> jars, ClassLoader host) {
        super(source, jars.toArray(URL[]::new), getPlatformClassLoader());
        this.host = requireNonNull(host, "host is null");
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (isShared(name)) {
            return host.loadClass(name);
        }
        return super.loadClass(name, resolve);
    }

    private static boolean isShared(String name) {
        for (String prefix : SHARED_PACKAGES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
