/**
 * Placement-policy plugins: {@link io.heliotrope.scheduler.plugin.Policies} is the registry the
 * scheduler asks for a policy by name, made of the built-in plugins and those of a plugins
 * directory, each loaded in a {@link io.heliotrope.scheduler.plugin.PluginClassLoader} of its
 * own that shares only the SPI package (and Jackson's annotations) with the host.
 */
package io.heliotrope.scheduler.plugin;
