package io.heliotrope.cli.transfer;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.ImageClient;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.storage.v1.ImageInfo;

/**
 * Where an import or an export moves its data: the NBD export of the image at a
 * standalone site (which says its NBD port in every {@link ImageInfo}), or at one of a
 * controller's sites (at the NBD address it registered), with the image created in, and
 * removed from, that site's or the controller's catalog.
 */
public final class TransferRoutes {
    private TransferRoutes() {}

    /** A standalone site: its catalog, its NBD server on the host its gRPC service was reached at. */
    public static ImageTransfer.Destination standalone(ImageClient site) {
        return new ImageTransfer.Destination() {
            @Override
            public NbdImage create(String name, long sizeBytes) {
                return served(site.create(name, sizeBytes), site);
            }

            @Override
            public void remove(String name) {
                site.delete(name);
            }
        };
    }

    /** The image {@code name} at a standalone site, which must have it. */
    public static NbdImage standalone(ImageClient site, String name) {
        return served(site.get(name), site);
    }

    /** The controller's catalog, and the NBD server of {@code site}. */
    public static ImageTransfer.Destination controller(CatalogClient catalog, Site site) {
        return new ImageTransfer.Destination() {
            @Override
            public NbdImage create(String name, long sizeBytes) {
                NbdImage image = at(site, name);
                catalog.create(name, sizeBytes);
                return image;
            }

            @Override
            public void remove(String name) {
                catalog.delete(name);
            }
        };
    }

    /** The image {@code name} at a controller's {@code site}. */
    public static NbdImage at(Site site, String name) {
        if (site.getNbdAddress().isEmpty()) {
            throw new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "site " + site.getName() + " registered no NBD address with the controller");
        }
        return NbdImage.at(site.getNbdAddress(), name);
    }

    private static NbdImage served(ImageInfo image, ImageClient site) {
        String address = site.target().address();
        if (image.getNbdPort() == 0) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "the site at " + address + " does not say where it serves NBD; is it an older version?");
        }
        return new NbdImage(address.substring(0, address.lastIndexOf(':')), image.getNbdPort(), image.getName());
    }
}
