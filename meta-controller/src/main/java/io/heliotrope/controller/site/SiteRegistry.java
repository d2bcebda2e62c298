package io.heliotrope.controller.site;

import io.heliotrope.controller.Names;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** The registered sites, one JSON znode each under {@code ROOT/sites}. */
public final class SiteRegistry {
    private static final Logger log = LoggerFactory.getLogger(SiteRegistry.class);

    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;

    public SiteRegistry(ZooKeeperStore zk, ZooKeeperLayout layout) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
    }

    /** Adds the site, or replaces what was registered under its name. */
    public Site register(Site site) {
        zk.put(layout.site(site.name()), Json.write(site));
        log.info("{}: registered (gRPC {}, NBD {}, VM memory {}, intra-site RTT {} us)", site.name(), site.grpcAddress(), site.nbdAddress(),
                site.vmMemoryBytes() == 0 ? "unlimited" : site.vmMemoryBytes() + " bytes", site.intraSiteRttMicros());
        return site;
    }

    public List<Site> list() {
        return zk.readChildrenJson(layout.sites(), Site.class);
    }

    /** The registered site of that name, else {@code SITE_NOT_FOUND}. */
    public Site require(String name) {
        String path = layout.site(Names.site(name));
        return zk.readJson(path, Site.class).orElseThrow(() -> Names.siteNotFound(name)).value();
    }
}
