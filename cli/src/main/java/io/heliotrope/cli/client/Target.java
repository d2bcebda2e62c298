package io.heliotrope.cli.client;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.nio.file.Path;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where a command's calls go, the cluster's controller or a standalone site, and what
 * chose it (empty when it goes without saying), for the message when nothing answers there.
 *
 * <p>The controller comes first, from {@code --controller}, else {@code HELIO_CONTROLLER},
 * else the {@link ClientConfig} file that {@code helio up} writes. A site is the target only
 * when {@code --server} is given, or when none of those names a controller. A controller
 * that does not answer is an error: the command never falls back to a site.
 */
public record Target(Kind kind, String address, String origin) {
    public enum Kind { CONTROLLER, SITE }

    public static final String ENV = "HELIO_CONTROLLER";
    static final String DEFAULT_SITE = "127.0.0.1:7410";
    public static final String DEFAULT_CONTROLLER = "127.0.0.1:7400";

    public Target {
        requireNonNull(kind, "kind is null");
        requireNonNull(address, "address is null");
        requireNonNull(origin, "origin is null");
    }

    /** The target of an image or status command, from its {@code --controller} and {@code --server} flags (null when not given). */
    static Target resolve(String controllerFlag, String serverFlag, Map<String, String> env, Path configFile) {
        if (controllerFlag != null && serverFlag != null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "give --controller or --server, not both");
        }
        if (serverFlag != null) {
            return new Target(Kind.SITE, serverFlag, "from --server");
        }
        Target controller = configuredController(controllerFlag, env, configFile);
        return controller != null ? controller : new Target(Kind.SITE, DEFAULT_SITE, "the default, as no controller is configured");
    }

    /** The controller of a command that needs one: the configured one, else the default address. */
    public static Target controller(String controllerFlag, Map<String, String> env, Path configFile) {
        Target controller = configuredController(controllerFlag, env, configFile);
        return controller != null ? controller : new Target(Kind.CONTROLLER, DEFAULT_CONTROLLER, "the default, as none is configured");
    }

    /** For messages: "the controller at 127.0.0.1:7400 (from HELIO_CONTROLLER)". */
    public String describe() {
        return (kind == Kind.CONTROLLER ? "the controller" : "the site") + " at " + address + (origin.isEmpty() ? "" : " (" + origin + ")");
    }

    private static Target configuredController(String flag, Map<String, String> env, Path configFile) {
        if (flag != null) {
            return new Target(Kind.CONTROLLER, flag, "from --controller");
        }
        String fromEnv = env.getOrDefault(ENV, "").strip();
        if (!fromEnv.isEmpty()) {
            return new Target(Kind.CONTROLLER, fromEnv, "from " + ENV);
        }
        return ClientConfig.read(configFile)
                .map(config -> new Target(Kind.CONTROLLER, config.controller(), "from " + configFile + ", written by helio up"))
                .orElse(null);
    }
}
