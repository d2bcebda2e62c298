package io.heliotrope.cli.server;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.ImageClient;
import io.heliotrope.nbd.tls.TlsMode;
import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.StorageServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "serve",
        mixinStandardHelpOptions = true,
        description = {"Run one site: block store, NBD server, gRPC admin service and metrics.",
                "With --controller the site joins a controller as --site NAME: images come from its catalog and",
                "opening one for write takes its lease. Attach with nbd://HOST:NBD_PORT/IMAGE; stop with SIGTERM or Ctrl-C."})
public final class ServeCommand implements Callable<Integer> {
    @Mixin
    SiteOptions site;

    @Option(names = "--create-image", paramLabel = "NAME=SIZE", converter = ImageSpec.Converter.class,
            description = "Create this image at start unless it exists (repeatable), e.g. vm1=10G.")
    List<ImageSpec> createImages = List.of();

    @Option(names = "--log-file", paramLabel = "FILE",
            description = "Where the full log goes, rolled over at 50 MiB (default: DATA-DIR/logs/site-NAME.log); the console shows our events "
                    + "and the libraries' warnings.")
    Path logFile;

    @Override
    public Integer call() throws Exception {
        SiteConfig config = site.load(null);
        List<ServerPort> listening = List.of(new ServerPort(config.site() + " NBD", config.bind(), config.nbdPort(), "--nbd-port"),
                new ServerPort(config.site() + " gRPC", config.bind(), config.grpcPort(), "--grpc-port"),
                new ServerPort(config.site() + " metrics", config.bind(), config.metricsPort(), "--metrics-port"));
        PortsInUse.check(listening);
        Path logs = config.dataDir() != null ? config.dataDir().resolve("logs") : StateDirectory.resolve("logs");
        Path log = logFile != null ? logFile : logs.resolve("site-" + config.site() + ".log");
        Logging.consoleAndFile(log);
        StorageServer server;
        try {
            server = new StorageServer(config);
        } catch (RuntimeException e) {
            throw PortsInUse.explain(e, listening);
        }
        try {
            createMissing(config, server.grpcPort(), createImages);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        System.out.println(String.format("site %s serving nbd://%s:%d/ (gRPC %d, metrics http://%s:%d/metrics); log in %s",
                config.site(), config.bind(), server.nbdAddress().getPort(), server.grpcPort(), config.bind(), server.metricsPort(), log));
        if (config.tls() != TlsMode.OFF) {
            System.out.println(String.format("  NBD over TLS (%s), certificates in %s: %s", config.tls(), config.tlsDir(),
                    NbdsUri.of(config.bind(), server.nbdAddress().getPort(), "IMAGE", "CLIENT-CERTIFICATE-DIR")));
        }
        System.out.flush();
        return Running.untilStopped(server);
    }

    /** Creates the images that do not exist yet, in the catalog of the site's controller if it has one. */
    static void createMissing(SiteConfig config, int grpcPort, List<ImageSpec> images) {
        if (config.controller() != null) {
            try (CatalogClient client = new CatalogClient(config.controller())) {
                ImageSpec.createMissing(images, client::create);
            }
        } else {
            try (ImageClient client = new ImageClient(config.localHost() + ":" + grpcPort)) {
                ImageSpec.createMissing(images, client::create);
            }
        }
    }
}
