package io.heliotrope.storage.peer;

import java.util.List;
import java.util.Optional;

/** Where the other sites are: the controller's site registry, as this site last read it. */
public interface SiteDirectory {
    /** host:port of {@code site}'s peer gRPC service, if the registry has the site. */
    Optional<String> grpcAddress(String site);

    /** Every site in the registry but this one, in name order. */
    List<String> others();
}
