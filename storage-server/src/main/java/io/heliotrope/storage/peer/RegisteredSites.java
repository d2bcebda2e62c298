package io.heliotrope.storage.peer;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * The other sites as the controller's registry last listed them, refreshed with the
 * catalog. An address given in this site's configuration wins over the registered one:
 * the way to reach a site through a WAN emulator's link, or through a NAT.
 */
public final class RegisteredSites implements SiteDirectory {
    private final String self;
    private final Map<String, String> overrides;
    private volatile Map<String, String> registered = Map.of();

    /** @param overrides site name to host:port of its peer service, as this site must dial it */
    public RegisteredSites(String self, Map<String, String> overrides) {
        this.self = requireNonNull(self, "self is null");
        this.overrides = Map.copyOf(overrides);
    }

    /** The registry as listed now: site name to the peer address it registered. */
    public void update(Map<String, String> sites) {
        registered = Map.copyOf(sites);
    }

    @Override
    public Optional<String> grpcAddress(String site) {
        return Optional.ofNullable(overrides.getOrDefault(site, registered.get(site)));
    }

    @Override
    public List<String> others() {
        TreeSet<String> names = new TreeSet<>(registered.keySet());
        names.addAll(overrides.keySet());
        names.remove(self);
        return List.copyOf(names);
    }

    @Override
    public String toString() {
        TreeMap<String, String> all = new TreeMap<>(registered);
        all.putAll(overrides);
        return all.toString();
    }
}
