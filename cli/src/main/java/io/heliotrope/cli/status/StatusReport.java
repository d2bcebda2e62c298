package io.heliotrope.cli.status;

import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.image.ImageList;
import io.heliotrope.cli.print.Ages;
import io.heliotrope.cli.print.Table;
import io.heliotrope.cli.vm.VmViews;
import io.heliotrope.proto.cli.v1.VmList;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.controller.v1.ZooKeeperHealth;
import io.heliotrope.proto.storage.v1.PeerTraffic;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import io.heliotrope.proto.storage.v1.SyncState;
import io.heliotrope.storage.BlockStore;

import java.io.PrintStream;
import java.time.Instant;
import java.util.List;

import static io.heliotrope.cli.print.Sizes.format;

/** What {@code helio status} prints for people. */
final class StatusReport {
    private StatusReport() {}

    static void cluster(ClusterStatus cluster, VmList vms, ControllerStates controllers, Target controller, PrintStream out) {
        long now = cluster.getGeneratedEpochMillis();
        out.println(controller.describe() + ", at " + Instant.ofEpochMilli(now));
        if (!controllers.states().isEmpty()) {
            out.println("controllers:");
            Table table = new Table("<<", "ADDRESS", "STATE");
            controllers.states().forEach(state -> table.add(state.address(), state.state()));
            table.print(out, "  ");
        }
        ZooKeeperHealth zookeeper = cluster.getZookeeper();
        if (cluster.hasZookeeper()) {
            out.println("zookeeper: " + (zookeeper.getConnected() ? "up" : "DOWN (out of reach, or its quorum is lost)") + " at " + zookeeper.getConnect()
                    + ", for " + Ages.format(Math.max(0, now - zookeeper.getSinceEpochMillis())));
        }
        if (cluster.hasZookeeper() && !zookeeper.getConnected()) {
            out.println("  opens and creates fail until it is back; images open for write are served while their leases last, then their");
            out.println("  reads and writes wait (the sites' --lease-hold) for a renewal; the catalog and the RTT matrix are in ZooKeeper:");
            out.println("  the sites below are those last registered");
        }
        out.println("sites:");
        Table sites = new Table("<<<<<<", "SITE", "STATE", "GRPC", "NBD", "LAST SEEN", "NOTE");
        for (SiteHealth site : cluster.getSitesList()) {
            sites.add(site.getSite().getName(), site.getUp() ? "up" : "down", site.getSite().getGrpcAddress(), site.getSite().getNbdAddress(),
                    site.getLastSeenEpochMillis() == 0 ? "never" : Ages.format(Math.max(0, now - site.getLastSeenEpochMillis())) + " ago",
                    site.getError());
        }
        printOrNone(sites, out);
        out.println("round trips in ms (rows measured from, columns to):");
        if (cluster.getRtt().getRowsCount() == 0) {
            out.println("  none reported yet");
        } else {
            RttCommand.print(cluster.getRtt(), out);
        }
        out.println("images:");
        if (cluster.getImagesCount() == 0) {
            out.println("  none");
        } else {
            ImageList.print(cluster.getImagesList(), out, "  ");
        }
        out.println("VMs:");
        if (vms.getVmsCount() == 0) {
            out.println("  none");
        } else {
            VmViews.print(vms, out, "  ");
        }
        out.println("transfers in flight (blocks waiting at a site to be pushed to others):");
        Table transfers = new Table("<<>>", "IMAGE", "SITE", "QUEUED", "LAG");
        Table migrations = new Table("<<<>", "IMAGE", "FROM", "TO", "EPOCH");
        for (ClusterImage image : cluster.getImagesList()) {
            String name = image.getStatus().getConfig().getName();
            for (SiteImageState site : image.getSitesList()) {
                if (site.getImage().getQueuedBlocks() > 0) {
                    transfers.add(name, site.getSite(), site.getImage().getQueuedBlocks(), Ages.format(site.getImage().getOldestQueuedMillis()));
                }
            }
            Lease lease = image.getStatus().getLease();
            if (!lease.getMovingTo().isEmpty()) {
                migrations.add(name, lease.getHolder(), lease.getMovingTo(), lease.getEpoch());
            }
        }
        printOrNone(transfers, out);
        out.println("lease moves in flight (write leases being handed over, as in a VM's migration):");
        printOrNone(migrations, out);
        out.println("sync images open for writing (DEGRADED: some writes are only at the writing site, lost if it is lost):");
        printOrNone(syncs(cluster), out);
    }

    private static Table syncs(ClusterStatus cluster) {
        Table syncs = new Table("<<<<<>", "IMAGE", "SITE", "STATE", "COPIES TO", "NOT ANSWERING", "ONLY HERE");
        for (ClusterImage image : cluster.getImagesList()) {
            for (SiteImageState site : image.getSitesList()) {
                SiteImageStatus state = site.getImage();
                if (state.getSyncState() != SyncState.SYNC_STATE_UNSPECIFIED) {
                    syncs.add(image.getStatus().getConfig().getName(), site.getSite(), syncState(state), listOrNone(state.getSyncSitesList()),
                            listOrNone(state.getSyncDownSitesList()), state.getSyncMissedBlocks());
                }
            }
        }
        return syncs;
    }

    /** {@code healthy} or {@code DEGRADED}, loud. */
    private static String syncState(SiteImageStatus state) {
        return state.getSyncState() == SyncState.SYNC_STATE_DEGRADED ? "DEGRADED" : "healthy";
    }

    private static String listOrNone(List<String> sites) {
        return sites.isEmpty() ? "none" : String.join(",", sites);
    }

    static void site(SiteStatus status, Target site, PrintStream out) {
        out.println("site " + status.getSite() + ": " + site.describe() + ", started " + Instant.ofEpochMilli(status.getStartedEpochMillis()));
        out.println("images (blocks of " + format(BlockStore.BLOCK_SIZE) + "):");
        Table images = new Table("<>>>>>>", "NAME", "DATA", "ZERO", "DIRTY", "QUEUED", "LAG", "CONNECTIONS");
        for (SiteImageStatus image : status.getImagesList()) {
            images.add(image.getName(), image.getAllocatedBlocks(), image.getZeroBlocks(), image.getDirtyBlocks(), image.getQueuedBlocks(),
                    image.getQueuedBlocks() == 0 ? "-" : Ages.format(image.getOldestQueuedMillis()), image.getConnections());
        }
        printOrNone(images, out);
        if (status.getPeersCount() > 0) {
            out.println("peers (block bytes since the site started):");
            Table peers = new Table("<>>", "PEER", "PUSHED", "FETCHED");
            for (PeerTraffic peer : status.getPeersList()) {
                peers.add(peer.getPeer(), format(peer.getPushedBytes()), format(peer.getFetchedBytes()));
            }
            peers.print(out, "  ");
        }
    }

    private static void printOrNone(Table table, PrintStream out) {
        if (table.hasRows()) {
            table.print(out, "  ");
        } else {
            out.println("  none");
        }
    }
}
