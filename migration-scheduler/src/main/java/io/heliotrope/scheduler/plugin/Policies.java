package io.heliotrope.scheduler.plugin;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.spi.Plugin;
import io.heliotrope.scheduler.spi.Policy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static io.heliotrope.error.ErrorCode.INVALID_ARGUMENT;
import static java.util.Objects.requireNonNullElse;

/**
 * The policies the scheduler knows: the built-in plugins' and those of the plugins directory
 * (see {@link PluginLoader} for how a plugin is found, and why a broken one fails the start).
 * Immutable once loaded, so any thread may ask; {@link #close} closes the plugins' class
 * loaders, after which their policies must not be called.
 */
public final class Policies implements Closeable {
    /** The source of the policies that ship with Heliotrope. */
    public static final String BUILT_IN = "built-in";

    private static final Logger log = LoggerFactory.getLogger(Policies.class);
    private static final String NAME_RULE = "[a-z][a-z0-9-]*";
    private static final Pattern NAME = Pattern.compile(NAME_RULE);

    /** Sorted by name; never changed once built. */
    private final TreeMap<String, Installed> policies;
    private final List<LoadedPlugin> plugins;

    private Policies(TreeMap<String, Installed> policies, List<LoadedPlugin> plugins) {
        this.policies = policies;
        this.plugins = plugins;
    }

    /**
     * The policies of {@code builtins} and of every plugin in {@code pluginsDir} (which may
     * not exist). Throws {@link HeliotropeException} ({@code INVALID_ARGUMENT}) for a plugin
     * that cannot be loaded, a policy name that is not lowercase letters, digits and dashes,
     * or a name two policies share.
     */
    public static Policies load(List<Plugin> builtins, Path pluginsDir) {
        List<LoadedPlugin> plugins = PluginLoader.load(pluginsDir);
        try {
            TreeMap<String, Installed> policies = new TreeMap<>();
            for (Plugin builtin : builtins) {
                register(policies, builtin, BUILT_IN);
            }
            for (LoadedPlugin plugin : plugins) {
                for (Plugin offered : plugin.plugins()) {
                    register(policies, offered, plugin.source());
                }
            }
            return new Policies(policies, plugins);
        } catch (RuntimeException e) {
            PluginLoader.closeAll(plugins, e);
            throw e;
        }
    }

    /** The policy named {@code name}; {@code INVALID_ARGUMENT} listing the known ones when none is. */
    public Policy<?> policy(String name) {
        Installed installed = policies.get(name);
        if (installed == null) {
            throw new HeliotropeException(INVALID_ARGUMENT,
                    "unknown policy '" + name + "'; known: " + String.join(", ", policies.keySet()));
        }
        return installed.policy();
    }

    /** Every policy, by name. */
    public List<InstalledPolicy> list() {
        return policies.values().stream().map(Installed::info).toList();
    }

    @Override
    public void close() throws IOException {
        IOException failure = new IOException("cannot close the plugins' class loaders");
        PluginLoader.closeAll(plugins, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private static void register(Map<String, Installed> policies, Plugin plugin, String source) {
        String pluginClass = plugin.getClass().getName();
        List<Policy<?>> offered = PluginLoader.call(source, pluginClass + ".policies()", () -> List.copyOf(plugin.policies()));
        for (Policy<?> policy : offered) {
            String policyClass = policy.getClass().getName();
            String name = PluginLoader.call(source, policyClass + ".name()", policy::name);
            if (name == null || !NAME.matcher(name).matches()) {
                throw PluginLoader.failure(source,
                        "invalid policy name '" + name + "' (" + policyClass + "): it must match " + NAME_RULE, null);
            }
            String description = requireNonNullElse(
                    PluginLoader.call(source, policyClass + ".description()", policy::description), name);
            Installed previous = policies.putIfAbsent(name, new Installed(policy, new InstalledPolicy(name, description, source)));
            if (previous != null) {
                throw new HeliotropeException(INVALID_ARGUMENT,
                        "policy '" + name + "' is offered twice: by " + previous.info().source() + " and by " + source);
            }
            if (!source.equals(BUILT_IN)) {
                log.info("{}: policy {}", source, name);
            }
        }
    }

    private record Installed(Policy<?> policy, InstalledPolicy info) {
    }
}
