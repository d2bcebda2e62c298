package io.heliotrope.storage.peer;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** A site registry that tests fill in and change; {@link #others()} leaves out the site it is seen from. */
public final class TestingSiteDirectory implements SiteDirectory {
    private final String self;
    private final Map<String, String> addresses = new ConcurrentSkipListMap<>();

    public TestingSiteDirectory(String self) {
        this.self = self;
    }

    public TestingSiteDirectory put(String site, String grpcAddress) {
        addresses.put(site, grpcAddress);
        return this;
    }

    @Override
    public Optional<String> grpcAddress(String site) {
        return Optional.ofNullable(addresses.get(site));
    }

    @Override
    public List<String> others() {
        return addresses.keySet().stream().filter(site -> !site.equals(self)).toList();
    }
}
