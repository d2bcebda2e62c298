package io.heliotrope.storage.image.mode;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.Replication.Mode;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.SiteDirectory;
import io.heliotrope.storage.propagation.ImagePropagation;
import io.heliotrope.storage.propagation.PropagationManager;
import io.heliotrope.storage.propagation.PushGuard;
import io.heliotrope.storage.view.Replicator;
import io.heliotrope.storage.view.ViewCache;
import io.heliotrope.storage.view.WanWaits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Peers peers;
    private final SiteDirectory sites;
    private final ViewCache view;
    private final WanWaits waits;
    /** The images open for write here in the proactive mode, by name. */
    private final Map<String, ImagePropagation> pushing = new ConcurrentHashMap<>();

    /** @param waits counts how long {@code sync} writes waited for their copies */
    public ModeReplicators(String site, PropagationManager propagation, Peers peers, SiteDirectory sites, ViewCache view, WanWaits waits) {
        this.site = requireNonNull(site, "site is null");
        this.propagation = requireNonNull(propagation, "propagation is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.sites = requireNonNull(sites, "sites is null");
        this.view = requireNonNull(view, "view is null");
        this.waits = requireNonNull(waits, "waits is null");
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
            case SYNC -> new SyncReplicator(peers, session, preferred(replication), replication.syncCopies(), waits);
            case ON_DEMAND, REMOTE -> Replicator.NONE;
        };
    }

    /**
     * Applies the catalog's K, S, cap, budget and transition table to the images pushing
     * from here, as they change at run time; a change of mode waits for the image's next open.
     */
    public void refresh(Function<String, Replication> catalog) {
        pushing.forEach((name, pushes) -> {
            try {
                pushes.update(catalog.apply(name).withMode(Mode.PROACTIVE));
            } catch (HeliotropeException e) {
                log.debug("{}: replication settings not refreshed: {}", name, e.getMessage());
            }
        });
    }

    /** A copy whose version is not yet committed stays away from the site that holds the committed one. */
    public static PushGuard guard(ViewCache view, ImageInfo image) {
        return (copy, destination) -> {
            GlobalBlock committed = view.entry(image.id(), copy.block());
            return committed == null || committed.version() == copy.version() || !destination.equals(committed.holder());
        };
    }

    /** The other sites, those the image's VM most likely moves to from here first. */
    private List<String> preferred(Replication replication) {
        Map<String, Double> row = replication.row(site);
        return sites.others().stream()
                .sorted(Comparator.comparingDouble((String other) -> -row.getOrDefault(other, 0.0)).thenComparing(Comparator.naturalOrder()))
                .toList();
    }
}
