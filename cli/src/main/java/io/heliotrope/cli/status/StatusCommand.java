package io.heliotrope.cli.status;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.ImageClient;
import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.client.TargetOptions;
import io.heliotrope.cli.client.VmClient;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.vm.VmViews;
import io.heliotrope.proto.cli.v1.VmList;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = "The cluster at a glance: its sites (up or down, addresses, when the controller last heard from each), "
                + "the RTT matrix, the images with their lease holders, the VMs and their state, and the transfers and migrations in flight. "
                + "Without a controller, or with --server: that site and its images.")
public final class StatusCommand implements Callable<Integer> {
    @Mixin
    TargetOptions target;

    @Option(names = "--json", description = "Print JSON instead (see README, Scripts): the controller's ClusterStatus (VMs: `helio vm ls --json`), or the site's SiteStatus.")
    boolean json;

    @Override
    public Integer call() {
        Target resolved = target.target();
        if (resolved.kind() == Target.Kind.CONTROLLER) {
            try (CatalogClient catalog = new CatalogClient(resolved); VmClient vms = new VmClient(resolved)) {
                Json.print(json, catalog.clusterStatus(), System.out, (cluster, out) -> StatusReport.cluster(cluster,
                        cluster.hasZookeeper() && !cluster.getZookeeper().getConnected() ? VmList.getDefaultInstance() : VmViews.list(vms, catalog),
                        ControllerStates.of(resolved),
                        resolved, out));
            }
        } else {
            try (ImageClient site = new ImageClient(resolved)) {
                Json.print(json, site.siteStatus(), System.out, (status, out) -> StatusReport.site(status, resolved, out));
            }
        }
        return 0;
    }
}
