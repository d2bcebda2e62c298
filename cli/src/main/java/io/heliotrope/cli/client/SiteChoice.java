package io.heliotrope.cli.client;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteHealth;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The site that an import or an export under a controller moves its data through. */
public final class SiteChoice {
    private SiteChoice() {}

    /**
     * @param requested the site named by {@code --site}, or null to choose: {@code home} when it is up, else the first site up
     * @param home the image's home, or "" when it has none (or does not exist yet)
     */
    public static Site choose(ClusterStatus cluster, String requested, String home) {
        List<SiteHealth> sites = cluster.getSitesList();
        if (requested != null) {
            return sites.stream().map(SiteHealth::getSite).filter(site -> site.getName().equals(requested)).findFirst()
                    .orElseThrow(() -> new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "site '" + requested + "' is not registered with the controller"
                            + (sites.isEmpty() ? "; it has no sites yet" : " (its sites: " + names(sites) + ")")));
        }
        Optional<SiteHealth> homeUp = sites.stream().filter(site -> site.getUp() && site.getSite().getName().equals(home)).findFirst();
        return homeUp.or(() -> sites.stream().filter(SiteHealth::getUp).findFirst()).map(SiteHealth::getSite)
                .orElseThrow(() -> new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, sites.isEmpty()
                        ? "the controller has no sites to move data through"
                        : "no site is up (" + names(sites) + " are registered)"));
    }

    /** A site's image service, at the address the site registered. */
    static ImageClient client(Site site) {
        return new ImageClient(new Target(Target.Kind.SITE, site.getGrpcAddress(), "site " + site.getName() + ", as registered with the controller"));
    }

    private static String names(List<SiteHealth> sites) {
        return sites.stream().map(site -> site.getSite().getName()).collect(Collectors.joining(", "));
    }
}
