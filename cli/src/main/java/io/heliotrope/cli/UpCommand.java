package io.heliotrope.cli;

import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.StorageServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "up",
        mixinStandardHelpOptions = true,
        description = {"Run the embedded default: one site with a demo image, served over NBD.",
                "Prints the nbd:// URL to attach; stop with Ctrl-C. Data persists in --data-dir."})
final class UpCommand implements Callable<Integer> {
    private static final String DEMO = "demo";

    @Mixin
    SiteOptions site;

    @Option(names = "--demo-size", paramLabel = "SIZE", converter = Sizes.class, defaultValue = "256M",
            description = "Size of the demo image when it is first made (default: ${DEFAULT-VALUE}).")
    long demoSize;

    @Override
    public Integer call() throws Exception {
        SiteConfig config = site.load(defaultDataDir());
        StorageServer server = new StorageServer(config);
        try {
            ImageClient.ensureImages("127.0.0.1:" + server.grpcPort(), List.of(new ImageSpec(DEMO, demoSize)));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        String host = config.bind().equals("0.0.0.0") ? "127.0.0.1" : config.bind();
        String url = "nbd://" + host + ":" + server.nbdAddress().getPort() + "/" + DEMO;
        System.out.println("Heliotrope is up: site " + config.site() + ", data in " + config.dataDir());
        System.out.println("  demo image : " + url);
        System.out.println("  admin gRPC : " + host + ":" + server.grpcPort() + "   (helio image ls --server " + host + ":" + server.grpcPort() + ")");
        System.out.println("  metrics    : http://" + host + ":" + server.metricsPort() + "/metrics");
        System.out.println("Try: qemu-img info " + url + "   or   nbdinfo " + url);
        System.out.println("Press Ctrl-C to stop.");
        System.out.flush();
        return Running.untilStopped(server);
    }

    private static Path defaultDataDir() {
        String state = System.getenv("XDG_STATE_HOME");
        Path base = state == null || state.isEmpty() ? Path.of(System.getProperty("user.home"), ".local", "state") : Path.of(state);
        return base.resolve("heliotrope").resolve("up");
    }
}
