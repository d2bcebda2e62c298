package io.heliotrope.cli.client;

import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** {@code --controller} and {@code --server}, which override the {@link Target} a command finds by itself. */
public final class TargetOptions {
    @Option(names = "--controller", paramLabel = "HOST:PORT[,HOST:PORT...]", scope = ScopeType.INHERIT,
            description = "The cluster's controller, or several (the first that answers is used) (default: $" + Target.ENV
                    + ", else the ones `helio up` wrote to ~/.config/heliotrope/client.yaml).")
    String controller;

    @Option(names = "--server", paramLabel = "HOST:PORT", scope = ScopeType.INHERIT,
            description = "A site's gRPC address: talk to that site alone, as to a standalone one (default when no controller "
                    + "is configured: " + Target.DEFAULT_SITE + ").")
    String server;

    public Target target() {
        return Target.resolve(controller, server, System.getenv(), ClientConfig.defaultPath());
    }
}
