package io.heliotrope.nbd;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

/**
 * Exports from a fixed map; every open of a name returns that same device. Lists name the
 * exports in order, each described by its size, at once, or later: after {@link #holdLists()},
 * each list waits until the test completes it.
 */
public final class TestingExportCatalog implements ExportCatalog {
    private final Map<String, BlockDevice> devices;
    private final Queue<CompletableFuture<List<ListedExport>>> heldLists = new ArrayDeque<>();
    private boolean holding;

    public TestingExportCatalog(Map<String, BlockDevice> devices) {
        this.devices = Map.copyOf(devices);
    }

    /** From now on, lists wait for {@link #nextHeldList()} to be completed. */
    public synchronized void holdLists() {
        holding = true;
    }

    /** The oldest list still waiting, for the test to complete or fail; null when none waits. */
    public synchronized CompletableFuture<List<ListedExport>> nextHeldList() {
        return heldLists.poll();
    }

    /** What a list answers: every export, in name order, described by its size. */
    public List<ListedExport> exports() {
        return devices.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(entry -> new ListedExport(entry.getKey(), entry.getValue().size() + " bytes"))
                .toList();
    }

    @Override
    public synchronized CompletableFuture<List<ListedExport>> list() {
        if (!holding) {
            return CompletableFuture.completedFuture(exports());
        }
        CompletableFuture<List<ListedExport>> held = new CompletableFuture<>();
        heldLists.add(held);
        return held;
    }

    @Override
    public boolean exists(String name) {
        return devices.containsKey(name);
    }

    @Override
    public CompletableFuture<BlockDevice> open(String name) {
        BlockDevice device = devices.get(name);
        return device == null
                ? CompletableFuture.failedFuture(new NbdException(NbdException.Kind.UNKNOWN_EXPORT, "image '" + name + "' does not exist"))
                : CompletableFuture.completedFuture(device);
    }
}
