package io.heliotrope.nbd;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Exports from a fixed map; every open of a name returns that same device. */
public final class TestingExportCatalog implements ExportCatalog {
    private final Map<String, BlockDevice> devices;

    public TestingExportCatalog(Map<String, BlockDevice> devices) {
        this.devices = Map.copyOf(devices);
    }

    @Override
    public List<String> exportNames() {
        return devices.keySet().stream().sorted().toList();
    }

    @Override
    public CompletableFuture<BlockDevice> open(String name) {
        BlockDevice device = devices.get(name);
        return device == null
                ? CompletableFuture.failedFuture(new NbdException(NbdException.Kind.UNKNOWN_EXPORT, "image '" + name + "' does not exist"))
                : CompletableFuture.completedFuture(device);
    }
}
