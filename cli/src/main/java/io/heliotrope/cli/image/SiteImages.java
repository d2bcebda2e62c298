package io.heliotrope.cli.image;

import io.heliotrope.cli.print.Table;
import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.ListImagesResponse;
import io.heliotrope.proto.storage.v1.StaleBlocks;

import java.io.PrintStream;
import java.time.Instant;

import static io.heliotrope.cli.print.Sizes.format;

/** {@code helio image ls} and {@code show} for people, at a standalone site: the images it stores. */
final class SiteImages {
    private SiteImages() {}

    static void list(ListImagesResponse images, PrintStream out) {
        Table table = new Table("<>><", "NAME", "SIZE", "ALLOCATED", "CREATED");
        for (ImageInfo image : images.getImagesList()) {
            table.add(image.getName(), format(image.getSizeBytes()), format(image.getAllocatedBlocks() * image.getBlockSize()),
                    Instant.ofEpochMilli(image.getCreatedEpochMillis()));
        }
        table.print(out, "");
    }

    static void show(ImageInfo image, PrintStream out) {
        out.println("name:        " + image.getName());
        out.println("size:        " + image.getSizeBytes() + " (" + format(image.getSizeBytes()) + ")");
        out.println("block size:  " + image.getBlockSize());
        out.println("created:     " + Instant.ofEpochMilli(image.getCreatedEpochMillis()));
        out.println("data blocks: " + image.getAllocatedBlocks() + " (" + format(image.getAllocatedBlocks() * image.getBlockSize()) + ")");
        out.println("zero blocks: " + image.getZeroBlocks());
        if (image.getViewMetaSeq() > 0 || image.getStaleBlocksCount() > 0) {
            out.println("view:        metaSeq " + image.getViewMetaSeq());
            for (StaleBlocks stale : image.getStaleBlocksList()) {
                out.println("stale:       " + stale.getBlocks() + " blocks"
                        + (stale.getHolder().isEmpty() ? " (current version is zero or never written)" : " current at site " + stale.getHolder()));
            }
        }
    }
}
