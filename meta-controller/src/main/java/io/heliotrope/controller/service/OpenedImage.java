package io.heliotrope.controller.service;

import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.Changes;

import static java.util.Objects.requireNonNull;

/** An open image: the lease (granted for a write open, as it stands for a read open), the configuration and the metadata the site lacks. */
public record OpenedImage(Lease lease, ImageConfig config, Changes changes) {
    public OpenedImage {
        requireNonNull(lease, "lease is null");
        requireNonNull(config, "config is null");
        requireNonNull(changes, "changes is null");
    }
}
