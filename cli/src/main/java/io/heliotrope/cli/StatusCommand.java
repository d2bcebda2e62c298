package io.heliotrope.cli;

import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = "The cluster at a glance: its sites (up or down, addresses, when the controller last heard from each), "
                + "the RTT matrix, the images with their lease holders, and the transfers and migrations in flight. "
                + "Without a controller, or with --server: that site and its images.")
final class StatusCommand implements Callable<Integer> {
    @Mixin
    TargetOptions target;

    @Option(names = "--json", description = "Print JSON instead (see README, Scripts): the controller's ClusterStatus, or the site's SiteStatus.")
    boolean json;

    @Override
    public Integer call() {
        Target resolved = target.target();
        if (resolved.kind() == Target.Kind.CONTROLLER) {
            try (CatalogClient catalog = new CatalogClient(resolved)) {
                ClusterStatus cluster = catalog.clusterStatus();
                if (json) {
                    Json.print(cluster, System.out);
                } else {
                    StatusReport.cluster(cluster, resolved, System.out);
                }
            }
        } else {
            try (ImageClient site = new ImageClient(resolved)) {
                SiteStatus status = site.siteStatus();
                if (json) {
                    Json.print(status, System.out);
                } else {
                    StatusReport.site(status, resolved, System.out);
                }
            }
        }
        return 0;
    }
}
