package io.heliotrope.storage.peer;

import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The other sites as the controller's registry last listed them, read again with the
 * catalog and whenever {@link #relist()} asks (a sync write that finds too few sites). An
 * address given in this site's configuration wins over the registered one: the way to reach
 * a site through a WAN emulator's link, or through a NAT.
 */
public final class RegisteredSites implements SiteDirectory {
    private static final Logger log = LoggerFactory.getLogger(RegisteredSites.class);

    private final String self;
    private final Map<String, String> overrides;
    private final Supplier<Map<String, String>> registry;
    private final Executor listing;
    private volatile Map<String, String> registered = Map.of();
    /** The reading of the registry under way, or null; guarded by this. */
    private CompletableFuture<Void> relisting;

    /**
     * @param overrides site name to host:port of its peer service, as this site must dial it
     * @param registry reads the registry (it may block): site name to the peer address it registered
     * @param listing where the registry is read
     */
    public RegisteredSites(String self, Map<String, String> overrides, Supplier<Map<String, String>> registry, Executor listing) {
        this.self = requireNonNull(self, "self is null");
        this.overrides = Map.copyOf(overrides);
        this.registry = requireNonNull(registry, "registry is null");
        this.listing = requireNonNull(listing, "listing is null");
    }

    /** The registry as listed now: site name to the peer address it registered. */
    public void update(Map<String, String> sites) {
        registered = Map.copyOf(sites);
    }

    /** One reading at a time: a caller that comes while one runs gets that one. */
    @Override
    public CompletableFuture<Void> relist() {
        CompletableFuture<Void> reading;
        synchronized (this) {
            if (relisting != null) {
                return relisting;
            }
            reading = new CompletableFuture<>();
            relisting = reading;
        }
        try {
            listing.execute(() -> list(reading));
        } catch (RuntimeException e) {
            log.warn("site {}: cannot list the other sites now: {}", self, e.toString());
            done(reading);
        }
        return reading;
    }

    private void list(CompletableFuture<Void> reading) {
        try {
            update(registry.get());
        } catch (HeliotropeException e) {
            log.warn("site {}: cannot list the other sites: {}", self, e.getMessage());
        } finally {
            done(reading);
        }
    }

    private void done(CompletableFuture<Void> reading) {
        synchronized (this) {
            relisting = null;
        }
        reading.complete(null);
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
