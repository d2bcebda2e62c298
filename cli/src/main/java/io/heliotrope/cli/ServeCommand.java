package io.heliotrope.cli;

import io.heliotrope.storage.server.SiteConfig;
import io.heliotrope.storage.server.StorageServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;

import java.util.concurrent.Callable;

@Command(name = "serve",
        mixinStandardHelpOptions = true,
        description = {"Run one site: block store, NBD server, gRPC admin service and metrics.",
                "With --controller the site joins a controller as --site NAME: images come from its catalog and",
                "opening one for write takes its lease. Attach with nbd://HOST:NBD_PORT/IMAGE; stop with SIGTERM or Ctrl-C."})
final class ServeCommand implements Callable<Integer> {
    @Mixin
    SiteOptions site;

    @Option(names = "--create-image", paramLabel = "NAME=SIZE", converter = ImageSpec.Converter.class,
            description = "Create this image at start unless it exists (repeatable), e.g. vm1=10G.")
    List<ImageSpec> createImages = List.of();

    @Override
    public Integer call() throws Exception {
        SiteConfig config = site.load(null);
        StorageServer server = new StorageServer(config);
        try {
            createMissing(config, server.grpcPort(), createImages);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        System.out.printf("site %s serving nbd://%s:%d/ (gRPC %d, metrics http://%s:%d/metrics)%n",
                config.site(), config.bind(), server.nbdAddress().getPort(), server.grpcPort(), config.bind(), server.metricsPort());
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
