package io.heliotrope.cli.image;

import io.heliotrope.cli.print.Table;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.SiteBlocks;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

import static io.heliotrope.cli.print.Sizes.format;

/** The images of the catalog, one line each: {@code helio image ls} under a controller, and a part of {@code helio status}. */
public final class ImageList {
    private ImageList() {}

    public static void print(List<ClusterImage> images, PrintStream out, String indent) {
        Table table = new Table("<><<<><", "NAME", "SIZE", "MODE", "HOME", "HOLDER", "EPOCH", "CURRENT AT");
        for (ClusterImage image : images) {
            ImageConfig config = image.getStatus().getConfig();
            Lease lease = image.getStatus().getLease();
            table.add(config.getName(), format(config.getSizeBytes()), ReplicationOptions.mode(config), orDash(config.getHome()),
                    orDash(lease.getHolder()), lease.getEpoch(), current(image.getStatus()));
        }
        table.print(out, indent);
    }

    /** Where the latest versions of the image's blocks are, e.g. {@code taiwan 4.0 KiB, virginia 1.0 MiB}; {@code -} when nothing is written. */
    static String current(ImageStatus status) {
        long blockSize = status.getConfig().getBlockSize();
        String sites = status.getCurrentBlocksList().stream()
                .filter(site -> site.getBlocks() > 0)
                .sorted(Comparator.comparing(SiteBlocks::getSite))
                .map(site -> site.getSite() + " " + format(site.getBlocks() * blockSize))
                .collect(Collectors.joining(", "));
        return orDash(sites);
    }

    static String orDash(String value) {
        return value.isEmpty() ? "-" : value;
    }
}
