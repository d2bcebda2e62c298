package io.heliotrope.cli.image;

import io.heliotrope.cli.print.Ages;
import io.heliotrope.cli.print.Table;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.PullMode;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.controller.v1.TransitionCount;
import io.heliotrope.proto.storage.v1.PullState;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SyncState;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.heliotrope.cli.print.Sizes.format;
import static java.nio.charset.StandardCharsets.UTF_8;

/** {@code helio image show} under a controller: an image as the catalog has it, merged with what each site reports. */
final class ImageShow {
    private ImageShow() {}

    /** @param cluster the controller's answer for one image: that image and every site */
    static void print(ClusterStatus cluster, PrintStream out) {
        ClusterImage clusterImage = cluster.getImages(0);
        ImageStatus status = clusterImage.getStatus();
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
        sync(clusterImage, out);
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
        out.println("transitions in use (a hint row weighs as much as 10 observed moves; a site with neither has the fleet's default row):");
        transitionsInUse(image, out);
        out.println("sites, in blocks of " + format(image.getBlockSize()) + ":");
        sites(cluster, clusterImage, out);
        out.println("  (current: the block's latest version is there; dirty: written there, not yet flushed to the controller;");
        out.println("  queued: waiting there to be pushed to other sites, lag: how long the oldest has waited;");
        out.println("  elsewhere: where it is open for writing, blocks whose latest version is only at other sites;");
        out.println("  pull: what the background pull there does about them)");
        out.println("  blocks whose latest version is zero: " + status.getZeroBlocks());
    }

    /** Where a sync image open for writing copies its writes, and whether some are only at the writing site. */
    private static void sync(ClusterImage image, PrintStream out) {
        for (SiteImageState site : image.getSitesList()) {
            SiteImageStatus state = site.getImage();
            if (state.getSyncState() == SyncState.SYNC_STATE_UNSPECIFIED) {
                continue;
            }
            String to = state.getSyncSitesCount() == 0 ? "no site" : String.join(", ", state.getSyncSitesList());
            String down = state.getSyncDownSitesCount() == 0 ? "" : "; not answering: " + String.join(", ", state.getSyncDownSitesList());
            out.println(state.getSyncState() == SyncState.SYNC_STATE_DEGRADED
                    ? "sync:        DEGRADED at " + site.getSite() + ": copies go to " + to + down + "; " + state.getSyncMissedBlocks()
                            + " blocks written are only at " + site.getSite() + " (lost if it is lost) until those sites have them"
                    : "sync:        healthy at " + site.getSite() + ": copies go to " + to);
        }
    }

    /** One line per registered site, and per other site that the catalog says holds blocks. */
    private static void sites(ClusterStatus cluster, ClusterImage image, PrintStream out) {
        Map<String, SiteHealth> health = cluster.getSitesList().stream().collect(Collectors.toMap(site -> site.getSite().getName(), Function.identity(), (a, b) -> a));
        Map<String, Long> current = image.getStatus().getCurrentBlocksList().stream().collect(Collectors.toMap(SiteBlocks::getSite, SiteBlocks::getBlocks, Long::sum));
        Map<String, SiteImageStatus> state = image.getSitesList().stream().collect(Collectors.toMap(SiteImageState::getSite, SiteImageState::getImage, (a, b) -> a));
        TreeSet<String> names = new TreeSet<>(health.keySet());
        names.addAll(current.keySet());
        long blockSize = image.getStatus().getConfig().getBlockSize();
        Table table = new Table("<>>>>>>><", "SITE", "CURRENT", "ALLOCATED", "DIRTY", "QUEUED", "LAG", "CONNECTIONS", "ELSEWHERE", "PULL");
        for (String name : names) {
            SiteHealth site = health.get(name);
            boolean up = site != null && site.getUp();
            String label = name + (site == null ? " (not registered)" : up ? "" : " (down)");
            SiteImageStatus here = state.getOrDefault(name, SiteImageStatus.getDefaultInstance());
            // A site that answers without a status (an older one) has nothing to show; one that reports no copy holds none.
            if (up && site.hasStatus()) {
                table.add(label, current.getOrDefault(name, 0L), format(here.getAllocatedBlocks() * blockSize), here.getDirtyBlocks(),
                        here.getQueuedBlocks(), here.getQueuedBlocks() == 0 ? "-" : Ages.format(here.getOldestQueuedMillis()), here.getConnections(),
                        open(here) ? here.getElsewhereBlocks() : "-", pull(here));
            } else {
                table.add(label, current.getOrDefault(name, 0L), "-", "-", "-", "-", "-", "-", "-");
            }
        }
        table.print(out, "  ");
    }

    /** Whether the image is open for writing at the site: then it reports its pull, off or not. */
    private static boolean open(SiteImageStatus image) {
        return image.getPullState() != PullState.PULL_STATE_UNSPECIFIED;
    }

    /** What the site's pull does: {@code running 80.3 MiB/s}, {@code done}, ...; "-" where the image is not open for writing. */
    private static String pull(SiteImageStatus image) {
        return switch (image.getPullState()) {
            case PULL_STATE_RUNNING -> "running " + format(image.getPullBytesPerSecond()) + "/s";
            case PULL_STATE_UNSPECIFIED, UNRECOGNIZED -> "-";
            default -> image.getPullState().name().replace("PULL_STATE_", "").toLowerCase(Locale.ROOT);
        };
    }

    /**
     * The table sites use, with {@code (default)} after each row that is the fleet's default.
     * {@link Transitions#print} writes a header line, then one line per site in the table's order.
     */
    private static void transitionsInUse(ImageConfig image, PrintStream out) {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        Transitions.print(new PrintStream(table, true, UTF_8), image.getTransitions());
        List<String> lines = table.toString(UTF_8).lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            boolean defaulted = i > 0 && image.getDefaultRowsList().contains(image.getTransitions().getSites(i - 1));
            out.println(lines.get(i) + (defaulted ? "  (default)" : ""));
        }
    }

    /** The replication settings, one per line. */
    static void replication(ImageConfig image, PrintStream out) {
        out.println("mode:        " + ReplicationOptions.mode(image) + " (K " + number(image.getKFactor()) + ", S " + number(image.getSRatio()) + ")");
        out.println("pull:        " + (image.getPulls() ? "on" : "off")
                + (image.getPull() == PullMode.PULL_MODE_UNSPECIFIED ? " (default of " + ReplicationOptions.mode(image) + ")" : ""));
        out.println("home:        " + (image.getHome().isEmpty() ? "none yet (the first site to open it for writing)" : image.getHome()));
        // A controller from before --sync-min sends 0: every copy, as the default.
        int min = image.getSyncMin() == 0 ? image.getSyncCopies() + 1 : image.getSyncMin();
        out.println("sync copies: " + image.getSyncCopies() + " (min " + min + (image.getSyncMinSet() ? ")" : ": every copy, the default)"));
        out.println("bandwidth:   " + (image.getBandwidthBytesPerSecond() == 0 ? "no cap" : format(image.getBandwidthBytesPerSecond()) + "/s"));
        out.println("budget:      " + (image.getBudgetBytesPerDay() == 0 ? "none" : format(image.getBudgetBytesPerDay()) + " a day"));
    }

    private static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
    }
}
