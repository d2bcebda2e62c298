package io.heliotrope.storage.peer;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Where the other sites are: the controller's site registry, as this site last read it. */
public interface SiteDirectory {
    /** host:port of {@code site}'s peer gRPC service, if the registry has the site. */
    Optional<String> grpcAddress(String site);

    /** Every site in the registry but this one, in name order. */
    List<String> others();

    /**
     * Reads the registry again now, rather than at its next periodic reading: a site that
     * registered a moment ago is then known. Completes once this directory has the new
     * listing, or could not get it; never fails. A directory with nothing to read completes at once.
     */
    default CompletableFuture<Void> relist() {
        return CompletableFuture.completedFuture(null);
    }
}
