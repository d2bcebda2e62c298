package io.heliotrope.storage.session;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.storage.image.ExportDescriptions;
import io.heliotrope.storage.session.Controller.CatalogImage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * The images of the controller's catalog as a site with a controller lists them over NBD:
 * every image it can serve, opened here or not, each described by its size, mode, home,
 * lease holder and where its current version is. Asked of the controller for each list,
 * within {@link #TIMEOUT}: a list never shows an image removed, nor misses one created, a
 * moment ago. While the controller does not answer, lists fail with {@code PEER_UNAVAILABLE},
 * logged at WARN on the first failure only, until a list succeeds again.
 */
final class CatalogExports {
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger(CatalogExports.class);

    private final String site;
    private final Controller controller;
    private final AtomicBoolean failing = new AtomicBoolean();

    CatalogExports(String site, Controller controller) {
        this.site = requireNonNull(site, "site is null");
        this.controller = requireNonNull(controller, "controller is null");
    }

    CompletableFuture<Long> sizeBytes(String name) {
        return controller.image(name, TIMEOUT).thenApply(CatalogImage::sizeBytes);
    }

    CompletableFuture<List<ListedExport>> list() {
        return controller.catalog(TIMEOUT).handle((images, failure) -> {
            if (failure != null) {
                Throwable cause = HeliotropeException.unwrap(failure);
                if (failing.compareAndSet(false, true)) {
                    log.warn("site {}: cannot list the images for NBD clients until the controller answers: {}", site, cause.getMessage());
                } else {
                    log.debug("site {}: cannot list the images for NBD clients: {}", site, cause.getMessage());
                }
                throw cause instanceof RuntimeException e ? e : new CompletionException(cause);
            }
            if (failing.compareAndSet(true, false)) {
                log.info("site {}: images listed for NBD clients again", site);
            }
            return images.stream().map(image -> new ListedExport(image.name(), ExportDescriptions.of(image.sizeBytes(), image.mode(), image.home(), image.holder(), image.currentBlocks()))).toList();
        });
    }
}
