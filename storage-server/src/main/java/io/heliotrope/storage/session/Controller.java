package io.heliotrope.storage.session;

import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.Replication;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * What a site asks of the meta-controller (DESIGN.md section 4), for this site. Calls
 * block; failures are {@code HeliotropeException}s ({@code STALE_LEASE}, {@code LEASE_HELD},
 * {@code PEER_UNAVAILABLE}, ...).
 */
public interface Controller extends AutoCloseable {
    /** Adds this site to the registry, or updates its addresses (and what else the implementation registers of it). */
    void register(String grpcAddress, String nbdAddress);

    /** The controller's catalog: each image's name and identity, in name order. */
    Map<String, UUID> images();

    /**
     * The catalog as clients list it: each image with its size, mode, home, lease holder and
     * where its current blocks are, in name order. Images whose mode this site does not know
     * are left out: it cannot serve them. Does not block; fails with {@code PEER_UNAVAILABLE}
     * when the controller has not answered within {@code timeout}.
     */
    CompletableFuture<List<CatalogImage>> catalog(Duration timeout);

    /** One image of the catalog, as {@link #catalog} lists it: fails with {@code IMAGE_NOT_FOUND} when there is none. Does not block. */
    CompletableFuture<CatalogImage> image(String name, Duration timeout);

    /** The registered sites, this one included, in name order. */
    List<SiteAddress> sites();

    /** The image's replication settings as the catalog has them now (K, S, cap and budget change while it is open). */
    Replication replication(String image);

    /**
     * Stores the round-trip time this site measured to each peer (the median of several probes), replacing its earlier report;
     * {@code probePeriod} is how often the site measures.
     */
    void reportRtt(Map<String, Duration> rtts, Duration probePeriod);

    /**
     * Takes the image's write lease and returns the metadata committed after {@code cachedMetaSeq}
     * and the image's replication settings. While another site holds the lease, waits for
     * its release as long as the implementation was configured to, then fails with {@code LEASE_HELD}.
     */
    Opened open(String image, long cachedMetaSeq);

    void renew(String image, long epoch);

    /**
     * Moves this site's live lease from {@code epoch} to the next epoch of the same holding
     * and returns it; a retry after a lost reply returns the epoch the first attempt took.
     */
    long advance(String image, long epoch);

    /** The image's write lease as it is now. */
    LeaseState lease(String image);

    /** {@link #lease(String)}, failing with {@code PEER_UNAVAILABLE} when the controller has not answered within {@code timeout}. */
    LeaseState lease(String image, Duration timeout);

    /**
     * The image as a read-only open finds it, taking nothing: its lease as it is now and the
     * metadata committed after {@code cachedMetaSeq} (a handoff's standby syncs with it, and
     * the site the lease moved to adopts it without another write).
     */
    Synced read(String image, long cachedMetaSeq);

    /**
     * Waits for a handoff to move the image's write lease to this site, then answers as
     * {@link #read} from {@code cachedMetaSeq}: the controller pushes the move, so a site in
     * standby adopts it without a round trip after the move. When {@code wait} passes first,
     * answers the lease as it is (held elsewhere) and no metadata. Does not block; cancelling
     * the future ends the call.
     */
    CompletableFuture<Synced> awaitHandoff(String image, long cachedMetaSeq, Duration wait);

    /**
     * The final flush of a handoff: commits these blocks under {@code epoch} and moves the
     * lease to {@code toSite} (which a prepare named) at the next epoch, in one transaction;
     * returns the new metaSeq. Fails with {@code PEER_UNAVAILABLE} when no answer came within
     * {@code timeout}: the move may have happened or not, which only the lease tells.
     */
    long handOver(String image, long epoch, List<BlockVersion> blocks, String holder, String toSite, Duration timeout);

    /**
     * Commits these blocks under {@code epoch}, each held by {@code holder} (this site, or the
     * home of a {@code remote} image) or a zero marker; returns the new metaSeq.
     */
    long flush(String image, long epoch, List<BlockVersion> blocks, String holder, boolean release);

    /**
     * Sync mode: records that {@code sites} take copies of this site's writes in its live
     * holding ({@code epoch} one of its epochs), before a write they hold is acknowledged.
     */
    void recordSyncSites(String image, long epoch, Set<String> sites);

    /**
     * Commits the recovery the lease owes ({@link Opened#recovery()}) under this site's
     * {@code epoch}: versions of the dead epochs, held by their sync sites (or zero); empty
     * when they hold nothing newer. Clears the recovery; returns the new metaSeq.
     */
    long recover(String image, long epoch, List<GlobalBlock> blocks);

    /**
     * Runs {@code listener} whenever the controller in use is seen to stop answering (its
     * connection lost), so that the site renews its leases through another one at once; it
     * runs on a transport thread and must not block. Nothing by default.
     */
    default void whenUnanswered(Runnable listener) {}

    @Override
    void close();

    /**
     * A write lease: {@code holder} (empty when nobody holds it) was granted it at
     * {@code grantEpoch} and has advanced it to {@code epoch} since.
     */
    record LeaseState(String holder, long grantEpoch, long epoch) {
        public LeaseState {
            requireNonNull(holder, "holder is null");
        }

        /** Whether {@code site} holds the lease and {@code epoch} is one of its holding's: what it wrote under it is still its own. */
        public boolean heldAt(String site, long epoch) {
            return holder.equals(site) && grantEpoch <= epoch && epoch <= this.epoch;
        }
    }

    /** What a read-only open found: the lease, which expires {@code expiresInMillis} from the answer, and the metadata as {@link Opened} has it. */
    record Synced(Opened opened, LeaseState lease, long expiresInMillis) {
        public Synced {
            requireNonNull(opened, "opened is null");
            requireNonNull(lease, "lease is null");
        }
    }

    /**
     * A granted write lease of the image {@code identity}, the metadata to apply before
     * serving, and how the image is replicated from this open on (its transition table the
     * controller's, learned from the lease moves it saw).
     */
    record Opened(UUID identity, long epoch, Duration ttl, long sizeBytes, long metaSeq, boolean snapshot, List<GlobalBlock> entries,
            Replication replication, Recovery recovery) {
        public Opened {
            requireNonNull(identity, "identity is null");
            entries = List.copyOf(entries);
            requireNonNull(replication, "replication is null");
            requireNonNull(recovery, "recovery is null");
        }
    }

    /**
     * What the holder owes before serving a sync image whose earlier holding by
     * {@code deadHolders} died without a final flush: the acknowledged writes of epochs
     * {@code firstEpoch} to {@code lastEpoch} it never flushed are at every site of one of
     * the {@code syncSites} sets each. {@link #NONE} when nothing is owed.
     */
    record Recovery(List<String> deadHolders, long firstEpoch, long lastEpoch, List<Set<String>> syncSites) {
        public static final Recovery NONE = new Recovery(List.of(), 0, 0, List.of());

        public Recovery {
            deadHolders = List.copyOf(deadHolders);
            syncSites = syncSites.stream().<Set<String>>map(set -> Collections.unmodifiableSortedSet(new TreeSet<>(set))).toList();
        }

        public boolean pending() {
            return !syncSites.isEmpty();
        }

        /** Every site of every set, in name order. */
        public SortedSet<String> sites() {
            SortedSet<String> sites = new TreeSet<>();
            syncSites.forEach(sites::addAll);
            return sites;
        }
    }

    /**
     * An image of the catalog: {@code identity} tells it from an earlier image of its name,
     * {@code holder} holds its write lease (empty: nobody), {@code home} is empty until chosen,
     * and {@code currentBlocks} gives, per site, the blocks whose latest committed version it holds.
     */
    record CatalogImage(String name, UUID identity, long sizeBytes, Replication.Mode mode, String home, String holder, Map<String, Long> currentBlocks) {
        public CatalogImage {
            requireNonNull(name, "name is null");
            requireNonNull(identity, "identity is null");
            requireNonNull(mode, "mode is null");
            requireNonNull(home, "home is null");
            requireNonNull(holder, "holder is null");
            currentBlocks = Map.copyOf(currentBlocks);
        }
    }

    /** A site of the registry: its name and where its peer gRPC and NBD servers listen (host:port, empty when not told). */
    record SiteAddress(String name, String grpcAddress, String nbdAddress) {
        public SiteAddress {
            requireNonNull(name, "name is null");
            requireNonNull(grpcAddress, "grpcAddress is null");
            requireNonNull(nbdAddress, "nbdAddress is null");
        }
    }
}
