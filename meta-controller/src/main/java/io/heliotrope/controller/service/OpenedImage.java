package io.heliotrope.controller.service;

import io.heliotrope.controller.catalog.CatalogImage;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.Changes;

import static java.util.Objects.requireNonNull;

/** An open image: the lease (granted for a write open, as it stands for a read open), the configuration with its lease moves and the metadata the site lacks. */
public record OpenedImage(Lease lease, CatalogImage image, Changes changes) {
    public OpenedImage {
        requireNonNull(lease, "lease is null");
        requireNonNull(image, "image is null");
        requireNonNull(changes, "changes is null");
    }
}
