package io.heliotrope.scheduler.plugin;

import static java.util.Objects.requireNonNull;

/**
 * A policy as {@code ListPolicies} shows it.
 *
 * @param source {@value Policies#BUILT_IN}, or the plugin's jar or directory
 */
public record InstalledPolicy(String name, String description, String source) {
    public InstalledPolicy {
        requireNonNull(name, "name is null");
        requireNonNull(description, "description is null");
        requireNonNull(source, "source is null");
    }
}
