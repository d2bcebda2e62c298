package io.heliotrope.controller.service;

import io.heliotrope.controller.catalog.CatalogImage;
import io.heliotrope.controller.lease.Lease;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * An image as the controller sees it: catalog entry with its lease moves, lease, where its log stands, how
 * many blocks each site holds current, and the bytes its metadata takes in ZooKeeper.
 */
public record ImageStatus(
        CatalogImage image,
        Lease lease,
        long metaSeq,
        long snapshotSeq,
        Map<String, Long> currentBlocks,
        long zeroBlocks,
        long metadataBytes) {
    public ImageStatus {
        requireNonNull(image, "image is null");
        requireNonNull(lease, "lease is null");
        currentBlocks = Map.copyOf(currentBlocks);
    }
}
