package io.heliotrope.storage.session;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.session.Controller.CatalogImage;
import io.heliotrope.storage.session.Controller.Recovery;
import io.heliotrope.version.Version;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A controller in memory for one or more sites of a test: leases with epochs, advanced
 * within a holding or granted anew, and a delta log, enough to check what sites send and when.
 * Sync sites recorded in a holding that is granted anew without a release become a
 * recovery owed, which a recovery flush commits, as the real controller does.
 */
public final class TestingController {
    private final Map<String, Long> sizes = new TreeMap<>();
    private final Map<String, UUID> identities = new TreeMap<>();
    private final Map<String, String> holders = new TreeMap<>();
    private final Map<String, Long> epochs = new TreeMap<>();
    private final Map<String, Long> grants = new TreeMap<>();
    private final Map<String, List<List<GlobalBlock>>> logs = new TreeMap<>();
    private final Map<String, CountDownLatch[]> holds = new ConcurrentHashMap<>();
    private final Map<String, List<Set<String>>> syncSites = new TreeMap<>();
    private final Map<String, Recovery> owed = new TreeMap<>();
    private final Set<String> expired = new TreeSet<>();
    private final Map<String, Replication> replications = new TreeMap<>();
    /** Completes at the next grant of any lease (a handoff moves one with a grant), then is replaced. */
    private CompletableFuture<Void> granted = new CompletableFuture<>();
    private int reads;
    private int awaits;
    private boolean loseAdvanceReply;
    private boolean loseHandOverReply;
    private boolean unreachable;

    public synchronized void createImage(String name, long sizeBytes) {
        sizes.put(name, sizeBytes);
        identities.put(name, UUID.randomUUID());
        epochs.put(name, 0L);
        logs.put(name, new ArrayList<>());
    }

    /** Removes the image with its lease and log, as the controller does once nobody holds the lease. */
    public synchronized void removeImage(String name) {
        sizes.remove(name);
        identities.remove(name);
        holders.remove(name);
        epochs.remove(name);
        grants.remove(name);
        logs.remove(name);
    }

    public synchronized UUID identity(String image) {
        return identities.get(image);
    }

    /** Opens of the image get these replication settings from now on (else the defaults, with the opening site as home). */
    public synchronized void replicate(String image, Replication replication) {
        replications.put(image, replication);
    }

    /** Moves the lease to another site, as if this one had stopped renewing. */
    synchronized void fence(String image, String site) {
        grant(image, site);
    }

    /** The holder stopped renewing and its lease expired: any site may take it now. */
    public synchronized void expire(String image) {
        expired.add(image);
    }

    /** The recovery the lease owes, {@link Recovery#NONE} when none. */
    public synchronized Recovery owed(String image) {
        return owed.getOrDefault(image, Recovery.NONE);
    }

    /** Calls for {@code image} count {@code entered} down, then wait for {@code release}, outside this controller's lock. */
    void hold(String image, CountDownLatch entered, CountDownLatch release) {
        holds.put(image, new CountDownLatch[] {entered, release});
    }

    private void pass(String image) {
        CountDownLatch[] hold = holds.get(image);
        if (hold != null) {
            hold[0].countDown();
            try {
                hold[1].await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Whether the catalog's listings and images fail to come, as if the controller did not answer. */
    public synchronized void unreachable(boolean unreachable) {
        this.unreachable = unreachable;
    }

    /** The next handover goes through, but its caller hears only that the controller did not answer. */
    public synchronized void loseNextHandOverReply() {
        loseHandOverReply = true;
    }

    /** A rollback of a handoff (the controller's CancelHandoff): the lease goes to {@code site} at a new epoch. */
    public synchronized long giveBack(String image, String site) {
        return grant(image, site);
    }

    /** A rollback of a handoff before the lease moved (the controller's CancelHandoff): the holding goes on at the next epoch. */
    public synchronized long advanceHolding(String image) {
        return epochs.merge(image, 1L, Long::sum);
    }

    /** The next advance of a lease goes through, but its caller hears only that the controller did not answer. */
    synchronized void loseNextAdvanceReply() {
        loseAdvanceReply = true;
    }

    public synchronized String holder(String image) {
        return holders.get(image);
    }

    synchronized long metaSeq(String image) {
        return logs.get(image).size();
    }

    /** The committed view: for each block, its last committed entry. */
    public synchronized Map<Long, GlobalBlock> view(String image) {
        Map<Long, GlobalBlock> view = new TreeMap<>();
        logs.get(image).forEach(delta -> delta.forEach(entry -> view.put(entry.block(), entry)));
        return view;
    }

    private synchronized CatalogImage catalogImage(String image) {
        Replication replication = replications.getOrDefault(image, Replication.defaults(""));
        Map<String, Long> current = view(image).values().stream()
                .filter(block -> !block.zero())
                .collect(Collectors.groupingBy(GlobalBlock::holder, Collectors.counting()));
        return new CatalogImage(image, identities.get(image), sizes.get(image), replication.mode(), replication.home(), holders.getOrDefault(image, ""), current);
    }

    private long grant(String image, String site) {
        List<Set<String>> sets = syncSites.getOrDefault(image, List.of());
        if (holders.containsKey(image) && !sets.isEmpty()) {
            Recovery before = owed(image);
            List<Set<String>> union = new ArrayList<>(before.syncSites());
            sets.stream().filter(set -> !union.contains(set)).forEach(union::add);
            List<String> dead = new ArrayList<>(before.deadHolders());
            dead.add(holders.get(image));
            owed.put(image, new Recovery(dead, before.pending() ? before.firstEpoch() : grants.get(image), epochs.get(image), union));
        }
        syncSites.remove(image);
        expired.remove(image);
        holders.put(image, site);
        long epoch = epochs.merge(image, 1L, Long::sum);
        grants.put(image, epoch);
        granted.complete(null);
        granted = new CompletableFuture<>();
        return epoch;
    }

    /** How many awaits of a handoff ({@link Controller#awaitHandoff}) sites made. */
    public synchronized int awaits() {
        return awaits;
    }

    /** How many read-only opens ({@link Controller#read}) sites made. */
    public synchronized int reads() {
        return reads;
    }

    /** What a read-only open of {@code site} finds: the lease, and the metadata after {@code cachedMetaSeq} unless {@code metadata} is false. */
    private synchronized Controller.Synced synced(String image, String site, long cachedMetaSeq, boolean metadata) {
        if (!sizes.containsKey(image)) {
            throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + image + "' does not exist");
        }
        List<GlobalBlock> tail = new ArrayList<>();
        List<List<GlobalBlock>> log = logs.get(image);
        long metaSeq = metadata ? log.size() : cachedMetaSeq;
        if (metadata) {
            log.subList((int) Math.min(cachedMetaSeq, log.size()), log.size()).forEach(tail::addAll);
        }
        long epoch = epochs.getOrDefault(image, 0L);
        Controller.Opened opened = new Controller.Opened(identities.get(image), epoch, Duration.ofMinutes(1), sizes.get(image), metaSeq, false, tail,
                replications.getOrDefault(image, Replication.defaults(site)), owed(image));
        return new Controller.Synced(opened, new Controller.LeaseState(holders.getOrDefault(image, ""), grants.getOrDefault(image, 0L), epoch),
                Duration.ofMinutes(1).toMillis());
    }

    public Controller forSite(String site) {
        return new Controller() {
            @Override
            public void register(String grpcAddress, String nbdAddress) {}

            @Override
            public Replication replication(String image) {
                return Replication.defaults(site);
            }

            @Override
            public Map<String, UUID> images() {
                synchronized (TestingController.this) {
                    return new TreeMap<>(identities);
                }
            }

            @Override
            public CompletableFuture<List<CatalogImage>> catalog(Duration timeout) {
                synchronized (TestingController.this) {
                    if (unreachable) {
                        return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "cannot reach the controller"));
                    }
                    return CompletableFuture.completedFuture(sizes.keySet().stream().map(TestingController.this::catalogImage).toList());
                }
            }

            @Override
            public CompletableFuture<CatalogImage> image(String name, Duration timeout) {
                synchronized (TestingController.this) {
                    if (unreachable) {
                        return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "cannot reach the controller"));
                    }
                    return sizes.containsKey(name) ? CompletableFuture.completedFuture(catalogImage(name))
                            : CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + name + "' does not exist"));
                }
            }

            @Override
            public List<SiteAddress> sites() {
                return List.of(new SiteAddress(site, "", ""));
            }

            @Override
            public void reportRtt(Map<String, Duration> rtts, Duration probePeriod) {}

            @Override
            public Opened open(String image, long cachedMetaSeq) {
                pass(image);
                synchronized (TestingController.this) {
                    known(image);
                    String holder = holders.get(image);
                    if (holder != null && !holder.equals(site) && !expired.contains(image)) {
                        throw new HeliotropeException(ErrorCode.LEASE_HELD, "image '" + image + "' is open for write at site '" + holder + "'");
                    }
                    long epoch = grant(image, site);
                    List<GlobalBlock> tail = new ArrayList<>();
                    List<List<GlobalBlock>> log = logs.get(image);
                    log.subList((int) Math.min(cachedMetaSeq, log.size()), log.size()).forEach(tail::addAll);
                    return new Opened(identities.get(image), epoch, Duration.ofMinutes(1), sizes.get(image), log.size(), false, tail,
                            replications.getOrDefault(image, Replication.defaults(site)), owed(image));
                }
            }

            @Override
            public void renew(String image, long epoch) {
                pass(image);
                synchronized (TestingController.this) {
                    checkLease(image, epoch);
                }
            }

            @Override
            public long advance(String image, long epoch) {
                pass(image);
                synchronized (TestingController.this) {
                    if (site.equals(holders.get(image)) && grants.get(image) <= epoch && epochs.get(image) == epoch + 1) {
                        return epoch + 1;
                    }
                    checkLease(image, epoch);
                    long next = epochs.merge(image, 1L, Long::sum);
                    if (loseAdvanceReply) {
                        loseAdvanceReply = false;
                        throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "the controller did not answer in time");
                    }
                    return next;
                }
            }

            @Override
            public LeaseState lease(String image) {
                pass(image);
                synchronized (TestingController.this) {
                    known(image);
                    return new LeaseState(holders.getOrDefault(image, ""), grants.getOrDefault(image, 0L), epochs.get(image));
                }
            }

            @Override
            public LeaseState lease(String image, Duration timeout) {
                return lease(image);
            }

            @Override
            public Synced read(String image, long cachedMetaSeq) {
                pass(image);
                synchronized (TestingController.this) {
                    reads++;
                    return synced(image, site, cachedMetaSeq, true);
                }
            }

            /** Answers when the lease is here, at once or at a grant that moves it here; else at the next grant or after {@code wait}, as it is. */
            @Override
            public CompletableFuture<Synced> awaitHandoff(String image, long cachedMetaSeq, Duration wait) {
                CompletableFuture<Void> next;
                synchronized (TestingController.this) {
                    awaits++;
                    if (site.equals(holders.get(image))) {
                        return CompletableFuture.completedFuture(synced(image, site, cachedMetaSeq, true));
                    }
                    next = granted;
                }
                return next.copy().completeOnTimeout(null, wait.toMillis(), TimeUnit.MILLISECONDS).thenApply(ignored -> {
                    synchronized (TestingController.this) {
                        return synced(image, site, cachedMetaSeq, site.equals(holders.get(image)));
                    }
                });
            }

            @Override
            public long handOver(String image, long epoch, List<BlockVersion> blocks, String holder, String toSite, Duration timeout) {
                long metaSeq = flush(image, epoch, blocks, holder, false);
                synchronized (TestingController.this) {
                    grant(image, toSite);
                    if (loseHandOverReply) {
                        loseHandOverReply = false;
                        throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "the controller did not answer in time");
                    }
                }
                return metaSeq;
            }

            @Override
            public long flush(String image, long epoch, List<BlockVersion> blocks, String holder, boolean release) {
                pass(image);
                synchronized (TestingController.this) {
                    known(image);
                    checkLease(image, epoch);
                    for (BlockVersion block : blocks) {
                        if (Version.epochOf(block.version()) < grants.get(image)) {
                            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "block " + block.block() + " of image '" + image
                                    + "' has version " + Version.of(block.version()) + ", from before the lease was granted");
                        }
                    }
                    logs.get(image).add(blocks.stream()
                            .map(block -> new GlobalBlock(block.block(), block.version(), block.state() == BlockState.ZERO ? null : holder))
                            .toList());
                    if (release) {
                        holders.remove(image);
                        syncSites.remove(image);
                    }
                    return logs.get(image).size();
                }
            }

            @Override
            public void recordSyncSites(String image, long epoch, Set<String> sites) {
                pass(image);
                synchronized (TestingController.this) {
                    known(image);
                    if (!site.equals(holders.get(image)) || epoch < grants.get(image) || epoch > epochs.get(image)) {
                        throw new HeliotropeException(ErrorCode.STALE_LEASE, "epoch " + epoch + " of image '" + image + "' is stale");
                    }
                    List<Set<String>> sets = syncSites.computeIfAbsent(image, name -> new ArrayList<>());
                    if (!sets.contains(sites)) {
                        sets.add(Set.copyOf(sites));
                    }
                }
            }

            @Override
            public long recover(String image, long epoch, List<GlobalBlock> blocks) {
                pass(image);
                synchronized (TestingController.this) {
                    known(image);
                    checkLease(image, epoch);
                    Recovery recovery = owed(image);
                    for (GlobalBlock block : blocks) {
                        long written = Version.epochOf(block.version());
                        if (written < recovery.firstEpoch() || written > recovery.lastEpoch() || !(block.zero() || recovery.sites().contains(block.holder()))) {
                            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "block " + block.block() + " of image '" + image
                                    + "' at " + Version.of(block.version()) + " held by " + block.holder() + " is not of the recovery " + recovery);
                        }
                    }
                    if (!recovery.pending()) {
                        throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': no recovery is pending");
                    }
                    logs.get(image).add(List.copyOf(blocks));
                    owed.remove(image);
                    return logs.get(image).size();
                }
            }

            private void checkLease(String image, long epoch) {
                if (!site.equals(holders.get(image)) || epochs.get(image) != epoch) {
                    throw new HeliotropeException(ErrorCode.STALE_LEASE, "epoch " + epoch + " of image '" + image + "' is stale");
                }
            }

            private void known(String image) {
                if (!sizes.containsKey(image)) {
                    throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + image + "' does not exist");
                }
            }

            @Override
            public void close() {}
        };
    }
}
