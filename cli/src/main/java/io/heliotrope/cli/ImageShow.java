package io.heliotrope.cli;

import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.TransitionCount;

import java.io.PrintStream;
import java.time.Instant;

import static io.heliotrope.cli.Sizes.format;

/** {@code helio image show --controller}: an image as the controller's catalog has it. */
final class ImageShow {
    private ImageShow() {}

    static void print(ImageStatus status, PrintStream out) {
        ImageConfig image = status.getConfig();
        Lease lease = status.getLease();
        out.println("name:        " + image.getName());
        out.println("identity:    " + image.getUuid());
        out.println("size:        " + image.getSizeBytes() + " (" + format(image.getSizeBytes()) + ")");
        out.println("created:     " + Instant.ofEpochMilli(image.getCreatedEpochMillis()));
        replication(image, out);
        out.println("lease:       " + (lease.getHolder().isEmpty()
                ? "none (last epoch " + lease.getEpoch() + ")"
                : "held by " + lease.getHolder() + ", epoch " + lease.getEpoch() + ", expires " + Instant.ofEpochMilli(lease.getExpiresEpochMillis())
                        + (lease.getMovingTo().isEmpty() ? "" : ", moving to " + lease.getMovingTo())));
        out.println("metaSeq:     " + status.getMetaSeq() + " (snapshot at " + status.getSnapshotSeq() + ", " + status.getMetadataBytes() + " bytes in ZooKeeper)");
        out.println("transition hint:");
        Transitions.print(out, image.getTransitionHint());
        out.println("observed lease moves:");
        if (image.getObservedMovesCount() == 0) {
            out.println("  none");
        }
        for (TransitionCount move : image.getObservedMovesList()) {
            out.printf("  %s -> %s: %d%n", move.getFromSite(), move.getToSite(), move.getMoves());
        }
        out.println("transitions in use (a hint row weighs as much as 10 observed moves):");
        Transitions.print(out, image.getTransitions());
        out.println("current blocks by site:");
        for (SiteBlocks site : status.getCurrentBlocksList()) {
            out.printf("  %-20s %d%n", site.getSite(), site.getBlocks());
        }
        out.printf("  %-20s %d%n", "(zero)", status.getZeroBlocks());
    }

    /** The replication settings, one per line. */
    static void replication(ImageConfig image, PrintStream out) {
        out.println("mode:        " + ReplicationOptions.mode(image) + " (K " + number(image.getKFactor()) + ", S " + number(image.getSRatio()) + ")");
        out.println("home:        " + (image.getHome().isEmpty() ? "none yet (the first site to open it for writing)" : image.getHome()));
        out.println("sync copies: " + image.getSyncCopies());
        out.println("bandwidth:   " + (image.getBandwidthBytesPerSecond() == 0 ? "no cap" : format(image.getBandwidthBytesPerSecond()) + "/s"));
        out.println("budget:      " + (image.getBudgetBytesPerDay() == 0 ? "none" : format(image.getBudgetBytesPerDay()) + " a day"));
    }

    private static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
    }
}
