package io.heliotrope.storage.image.mode;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.Replication.Mode;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.propagation.ImagePropagation;
import io.heliotrope.storage.propagation.PropagationManager;
import io.heliotrope.storage.propagation.PushGuard;
import io.heliotrope.storage.view.Replicator;
import io.heliotrope.storage.view.ViewCache;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Each image's replication mode, as its catalog said when it opened here (DESIGN.md
 * section 6): {@code proactive} pushes through the propagation manager, {@code on-demand}
 * only fetches, {@code sync} acknowledges a write once other sites hold it. A {@code remote}
 * image is served from the store as an {@code on-demand} one at its home; elsewhere its
 * connections get devices that store nothing here ({@link ModeDevices}), which leave its view unused.
 */
public final class ModeReplicators implements ReplicatorFactory {
    private static final Logger log = LoggerFactory.getLogger(ModeReplicators.class);

    private final String site;
    private final PropagationManager propagation;
    private final ViewCache view;
    private final SyncContext sync;
    private final SyncMetrics syncMetrics;
    /** The images open for write here in the proactive mode, by name. */
    private final Map<String, ImagePropagation> pushing = new ConcurrentHashMap<>();
    /** The images open for write here in the sync mode, by name. */
    private final Map<String, SyncReplicator> syncing = new ConcurrentHashMap<>();

    /** @param sync what the {@code sync} images share */
    public ModeReplicators(String site, PropagationManager propagation, ViewCache view, SyncContext sync, MeterRegistry registry) {
        this.site = requireNonNull(site, "site is null");
        this.propagation = requireNonNull(propagation, "propagation is null");
        this.view = requireNonNull(view, "view is null");
        this.sync = requireNonNull(sync, "sync is null");
        this.syncMetrics = new SyncMetrics(registry, () -> syncStatuses().values());
    }

    @Override
    public Replicator open(ImageSession session) {
        ImageInfo image = session.info();
        Replication replication = session.replication();
        return switch (replication.mode()) {
            case PROACTIVE -> {
                ImagePropagation pushes = propagation.open(image, guard(view, image), replication);
                pushing.put(image.name(), pushes);
                yield new ProactiveReplicator(pushes, () -> pushing.remove(image.name(), pushes));
            }
            case SYNC -> {
                SyncReplicator copies = new SyncReplicator(sync, syncMetrics, session, replication, preference(replication),
                        closed -> syncing.remove(image.name(), closed));
                syncing.put(image.name(), copies);
                yield copies;
            }
            case ON_DEMAND, REMOTE -> Replicator.NONE;
        };
    }

    /**
     * Applies the catalog's K, S, cap, budget and transition table to the images pushing
     * from here, and the sync min to the sync images, as they change at run time; a change of
     * mode or of sync copies waits for the image's next open.
     */
    public void refresh(Function<String, Replication> catalog) {
        pushing.forEach((name, pushes) -> refresh(name, catalog, replication -> pushes.update(replication.withMode(Mode.PROACTIVE))));
        syncing.forEach((name, copies) -> refresh(name, catalog, copies::update));
    }

    private static void refresh(String name, Function<String, Replication> catalog, Consumer<Replication> update) {
        try {
            update.accept(catalog.apply(name));
        } catch (HeliotropeException e) {
            log.debug("{}: replication settings not refreshed: {}", name, e.getMessage());
        }
    }

    /** The sync images open for write here, by name. */
    public Map<String, SyncStatus> syncStatuses() {
        Map<String, SyncStatus> statuses = new TreeMap<>();
        syncing.forEach((name, copies) -> statuses.put(name, copies.status()));
        return statuses;
    }

    /** A copy whose version is not yet committed stays away from the site that holds the committed one. */
    public static PushGuard guard(ViewCache view, ImageInfo image) {
        return (copy, destination) -> {
            GlobalBlock committed = view.entry(image.id(), copy.block());
            return committed == null || committed.version() == copy.version() || !destination.equals(committed.holder());
        };
    }

    /** The other sites in the order they take sync copies: those the image's VM most likely moves to from here first. */
    private Comparator<String> preference(Replication replication) {
        Map<String, Double> row = replication.row(site);
        return Comparator.comparingDouble((String other) -> -row.getOrDefault(other, 0.0)).thenComparing(Comparator.naturalOrder());
    }
}
