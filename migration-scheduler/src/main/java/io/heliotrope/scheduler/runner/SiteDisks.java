package io.heliotrope.scheduler.runner;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * What a site's VM runner needs of the site's storage: where its NBD server listens, and
 * the two steps of a migration's storage handoff that the runner takes by itself, so that
 * neither waits for a round trip to the driver (DESIGN.md section 4, steps 4 and 5).
 * Implemented by the site process over its handoff service.
 */
public interface SiteDisks {
    /** The address of this site's NBD server, where the VM's disks are attached. */
    InetSocketAddress nbdAddress();

    /**
     * At the source, on {@code pre-switchover}: every connection to {@code image} here stops
     * being served (I/O waits), the final delta is flushed and the write lease moves to
     * {@code toSite} in one controller transaction, and the destination is told to activate.
     * Completes once the lease is known to have moved; fails when that is still unknown at
     * {@code deadline} (the image's I/O then stays held until a rollback reclaims it).
     */
    CompletableFuture<Void> handover(String image, String toSite, Duration deadline);

    /**
     * At the destination: completes once this site has activated {@code image} (it holds the
     * lease the source handed over and serves writes); never completes while it is in standby.
     */
    CompletableFuture<Void> active(String image);
}
