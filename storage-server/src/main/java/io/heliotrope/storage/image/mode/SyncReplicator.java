package io.heliotrope.storage.image.mode;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.image.mode.SyncMembers.CatchUp;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.Replicator;
import io.heliotrope.storage.view.WanWaits.Cause;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * The {@code sync} mode (DESIGN.md section 6): a write is acknowledged once {@code copies}
 * other sites hold it, so losing this site loses no acknowledged write. The sites are the
 * registry's as it lists them at each write ({@link SyncMembers}), so an image opened the
 * moment its sites registered works; a write that finds fewer sites listed than it needs
 * reads the registry again and waits for one, at most the patience. A site that fails is
 * replaced by another for this write and the following ones, and asked again every second.
 *
 * <p>With fewer sites answering than {@code copies}, a write is acknowledged with as few as
 * the image's sync min ({@link Replication#syncMinCopies()}, this site's copy included): the
 * image runs degraded, says so once in the log, in its status and its metrics, and its
 * blocks are pushed to the sites as soon as enough answer again; only then is it healthy.
 * Below the sync min, a write tries again until the patience runs out, then fails (EIO),
 * though it is stored here: the client sees an error, never an acknowledgement the mode
 * cannot keep.
 *
 * <p>The sites that hold a write are recorded with the lease before it is acknowledged
 * ({@link ImageSession#recordSyncSites}): should this site die, the next one to open the
 * image recovers the writes from them. Each set of sites is recorded once per session. A
 * degraded write that no other site holds records nothing: it is lost with this site.
 */
final class SyncReplicator implements Replicator {
    /** How often a waiting write looks at the registry and the sites that were down. */
    static final Duration RETRY = Duration.ofMillis(100);
    /** How often an open image asks the sites that were down, and catches up what they missed. */
    static final Duration TEND = Duration.ofSeconds(1);
    /** Blocks per push of a catch-up. */
    static final int CATCH_UP_BATCH = 256;
    private static final Logger log = LoggerFactory.getLogger(SyncReplicator.class);

    private final SyncContext context;
    private final SyncMetrics metrics;
    private final ImageSession session;
    private final ImageRef image;
    private final int copies;
    private volatile int min;
    private final SyncMembers members;
    private final SyncPushes outgoing;
    /** The highest mark of a write stored here ({@link io.heliotrope.storage.peer.GroupSync#stored}). */
    private final AtomicLong written = new AtomicLong();
    /** Whether a FLUSH came since the last write. */
    private volatile boolean flushed;
    /** Per set of sites, its recording with the lease; a failed one is dropped, to be asked again. */
    private final Map<Set<String>, CompletableFuture<Void>> recorded = new ConcurrentHashMap<>();
    private final Consumer<SyncReplicator> onClose;
    private final ScheduledFuture<?> tending;
    /** Closed here: what was missed is no longer caught up (docs/sync-mode.md). */
    private volatile boolean ended;
    /** The pings of the sites that are down under way, or the last, done; guarded by this. */
    private CompletableFuture<Void> probing = CompletableFuture.completedFuture(null);

    /**
     * @param preference the order in which sites take copies, the preferred first
     * @param onClose hears that this image closed here
     */
    SyncReplicator(SyncContext context, SyncMetrics metrics, ImageSession session, Replication replication, Comparator<String> preference,
            Consumer<SyncReplicator> onClose) {
        this.context = requireNonNull(context, "context is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.session = requireNonNull(session, "session is null");
        this.image = ImageRef.of(session.info());
        this.copies = replication.syncCopies();
        this.min = replication.syncMinCopies();
        this.members = new SyncMembers(copies, preference);
        this.outgoing = new SyncPushes(context.peers(), image, metrics);
        this.onClose = requireNonNull(onClose, "onClose is null");
        // Recorded at the first write they take, not now: a set recorded for a site that is down would hold up the next open after
        // this site's loss, waiting for a site that holds nothing of this session.
        members.members(context.sites().others());
        tending = context.timers().scheduleWithFixedDelay(this::tend, TEND.toNanos(), TEND.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Takes the sync min the catalog has now; the number of copies waits for the next open. */
    void update(Replication replication) {
        min = replication.syncMinCopies();
    }

    SyncStatus status() {
        return members.status(image.name(), min);
    }

    @Override
    public CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
        if (copies == 0) {
            return CompletableFuture.completedFuture(null);
        }
        // Stored here: a FLUSH after it waits for a sync that covers this mark. A write that follows a FLUSH starts that sync now,
        // beside its copies, as the next FLUSH is likely to follow it (a write with an fsync after each costs one round trip, the
        // sync here under it); writes that FLUSHes do not follow leave their syncs to the store.
        long mark = context.durableHere().stored();
        written.accumulateAndGet(mark, Math::max);
        if (flushed) {
            flushed = false;
            context.durableHere().request(mark);
        }
        // Our own copy: the NBD payload goes back to its pool once the write is answered, and a
        // push that failed over to another site may still be sending from it then.
        ByteBuffer own = data == null ? null : ByteBuffer.allocate(data.remaining()).put(data.duplicate()).flip();
        List<Copy> blocks = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            blocks.add(new Copy(first + i, version, own == null ? null : own.slice(i * BLOCK_SIZE, BLOCK_SIZE)));
        }
        Write write = new Write(first, count, blocks);
        return context.waits().time(Cause.SYNC, attempt(write, System.nanoTime() + context.patience().toNanos()));
    }

    /**
     * A write is acknowledged once its sync sites hold it durably, and is durable here after
     * a FLUSH, as any write to a disk: the FLUSH shares the sync a write after the last FLUSH
     * started, or the one under way, when it covers every write acknowledged before.
     */
    @Override
    public CompletableFuture<Void> flush(Supplier<CompletableFuture<Void>> storeSync) {
        if (copies == 0) {
            return storeSync.get();
        }
        flushed = true;
        return context.durableHere().request(written.get());
    }

    private record Write(long first, long count, List<Copy> blocks) {}

    /** Pushes the write to the members, then acknowledges, waits or fails by how many hold it. */
    private CompletableFuture<Void> attempt(Write write, long deadline) {
        List<String> known = context.sites().others();
        List<String> targets = members.members(known);
        if (known.size() < copies && !members.degraded() && System.nanoTime() < deadline) {
            // The registry as last read lists too few sites: one may have registered since.
            return pause(deadline).thenCompose(ignored -> attempt(write, deadline));
        }
        Set<String> tried = ConcurrentHashMap.newKeySet();
        tried.addAll(targets);
        List<CompletableFuture<String>> pushes = targets.stream().map(site -> pushFrom(site, tried, known, write)).toList();
        return CompletableFuture.allOf(pushes.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            Set<String> held = pushes.stream().map(CompletableFuture::join).filter(Objects::nonNull).collect(Collectors.toUnmodifiableSet());
            return settle(write, held, deadline);
        });
    }

    private CompletableFuture<Void> settle(Write write, Set<String> held, long deadline) {
        if (held.size() >= copies) {
            metrics.copied();
            return record(held).thenRun(this::catchUp);
        }
        if (1 + held.size() >= min) {
            if (members.missed(write.first(), write.count())) {
                log.warn("{}: DEGRADED: a write at block {} is acknowledged with {} of its {} copies (sync min {}): {}. Until those sites have "
                        + "every write back, losing this site loses the writes only it holds", image.name(), write.first(), 1 + held.size(),
                        1 + copies, min, unanswered());
            }
            metrics.degraded();
            return held.isEmpty() ? CompletableFuture.completedFuture(null) : record(held);
        }
        if (System.nanoTime() < deadline) {
            return pause(deadline).thenCompose(ignored -> attempt(write, deadline));
        }
        // Stored here all the same: it goes to the sites with what they missed once they answer.
        if (members.missed(write.first(), write.count())) {
            log.warn("{}: writes fail: fewer than the {} copies its sync min needs can be made: {}", image.name(), min, unanswered());
        }
        metrics.refused();
        return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + image.name() + "': the write at block "
                + write.first() + " is stored here, but only " + (1 + held.size()) + " of the " + min + " copies (this site's included) its sync min"
                + " needs were made within " + context.patience().toMillis() + " ms: " + unanswered()));
    }

    /** Why too few sites took copies, for a log line or an error. */
    private String unanswered() {
        List<String> known = context.sites().others();
        Map<String, String> down = new TreeMap<>(members.status(image.name(), min).down());
        if (!down.isEmpty()) {
            return "no answer from " + down.entrySet().stream().map(site -> site.getKey() + " (" + site.getValue() + ")").collect(Collectors.joining(", "))
                    + "; the registry lists " + known;
        }
        return "the registry lists " + known.size() + " other sites " + known + " for " + copies + " sync copies";
    }

    /**
     * Pushes to {@code site}, moving on to another site ({@link SyncMembers#replace}) if it
     * fails or does not hold every copy (a site holds a copy it refused for holding a newer
     * version: writes to one block in flight together may land out of order); completes with
     * the site that holds the copies, or null when no site is left to try.
     */
    private CompletableFuture<String> pushFrom(String site, Set<String> tried, List<String> known, Write write) {
        return outgoing.push(site, write.blocks()).thenApply(held -> {
            requireHeld(site, held);
            return site;
        }).exceptionallyCompose(failure -> {
            String why = HeliotropeException.rootMessage(failure);
            boolean first = members.fail(site, why);
            String replacement = members.replace(site, why, tried, known);
            if (first) {
                log.warn("{}: the sync copy of {} blocks from block {} did not reach site {}{}: {}", image.name(), write.count(), write.first(), site,
                        replacement == null ? ", and no other site is left to take it" : "; site " + replacement + " takes the copies instead", why);
            }
            return replacement == null ? CompletableFuture.completedFuture(null) : pushFrom(replacement, tried, known, write);
        });
    }

    private static void requireHeld(String site, boolean[] held) {
        for (boolean one : held) {
            if (!one) {
                throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site '" + site + "' refused the copy");
            }
        }
    }

    /**
     * Completes after {@link #RETRY} (or at the deadline, if sooner) once the registry was
     * read again and the sites that were down were asked, or at the deadline.
     */
    private CompletableFuture<Void> pause(long deadline) {
        CompletableFuture<Void> looked = context.sites().relist().thenCompose(ignored -> probe());
        CompletableFuture<Void> paced = new CompletableFuture<>();
        Runnable pace = () -> paced.complete(null);
        context.timers().schedule(pace, Math.max(0, Math.min(RETRY.toNanos(), deadline - System.nanoTime())), TimeUnit.NANOSECONDS);
        return paced.thenCompose(ignored -> looked.completeOnTimeout(null, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
    }

    /**
     * Pings the sites that are down; those that answer may take copies again. Completes once
     * each answered or failed; a call while pings are under way gets theirs.
     */
    private synchronized CompletableFuture<Void> probe() {
        if (!probing.isDone()) {
            return probing;
        }
        List<CompletableFuture<Void>> pings = members.down().stream()
                .map(site -> context.peers().ping(site).handle((rtt, failure) -> {
                    if (failure == null) {
                        members.up(site);
                        log.info("{}: site {} answers again: it takes sync copies, and the writes it missed, from now on", image.name(), site);
                    }
                    return (Void) null;
                }))
                .toList();
        probing = CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new));
        return probing;
    }

    /** Every {@link #TEND}: asks the sites that were down, takes in sites the registry lists since, and catches up. */
    private void tend() {
        try {
            probe().thenRun(() -> {
                members.members(context.sites().others());
                catchUp();
            });
        } catch (RuntimeException e) {
            // A periodic task that throws is never run again.
            log.warn("{}: cannot look at the sync sites: {}", image.name(), e.toString());
        }
    }

    /** Pushes the blocks written while degraded to the members, a batch at a time, once enough sites answer; says when the image is healthy again. */
    private void catchUp() {
        if (ended) {
            return;
        }
        CatchUp due = members.catchUp(CATCH_UP_BATCH);
        if (due == null) {
            List<String> holding = members.members(context.sites().others());
            if (members.mayHeal()) {
                // Recorded before the image counts as healthy: the next open after this site's loss recovers the caught-up writes from them.
                record(Set.copyOf(holding)).thenRun(() -> {
                    if (members.healed()) {
                        log.info("{}: healthy again: sites {} hold every write", image.name(), holding);
                    }
                });
            }
            return;
        }
        CompletableFuture.supplyAsync(() -> copiesOf(due.blocks()), context.storeReads())
                .thenCompose(found -> CompletableFuture.allOf(due.sites().stream().map(site -> context.peers().push(site, image, found)
                        .thenAccept(held -> requireHeld(site, held))
                        .whenComplete((ignored, failure) -> {
                            if (failure != null && members.fail(site, HeliotropeException.rootMessage(failure))) {
                                log.warn("{}: site {} did not take the blocks it missed: {}", image.name(), site, HeliotropeException.rootMessage(failure));
                            }
                        })).toArray(CompletableFuture[]::new)))
                .whenComplete((ignored, failure) -> {
                    members.caughtUp(failure == null);
                    if (failure == null) {
                        metrics.caughtUp(due.blocks().length);
                        catchUp();
                    }
                });
    }

    /** This site's copies of {@code blocks}, each version with its data as one step of the store read them. */
    private List<Copy> copiesOf(long[] blocks) {
        ByteBuffer data = ByteBuffer.allocate(blocks.length * BLOCK_SIZE);
        List<BlockVersion> versions = context.store().readCopies(session.info().id(), blocks, data);
        List<Copy> found = new ArrayList<>(blocks.length);
        for (int i = 0; i < blocks.length; i++) {
            BlockVersion block = versions.get(i);
            if (block.state() != BlockState.UNWRITTEN) {
                found.add(new Copy(block.block(), block.version(), block.state() == BlockState.ZERO ? null : data.slice(i * BLOCK_SIZE, BLOCK_SIZE)));
            }
        }
        return found;
    }

    private CompletableFuture<Void> record(Set<String> sites) {
        CompletableFuture<Void> known = recorded.get(sites);
        if (known != null) {
            return known;
        }
        CompletableFuture<Void> recording = new CompletableFuture<>();
        known = recorded.putIfAbsent(sites, recording);
        if (known != null) {
            return known;
        }
        session.recordSyncSites(sites).whenComplete((ignored, failure) -> {
            if (failure == null) {
                recording.complete(null);
                return;
            }
            recorded.remove(sites, recording);
            recording.completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + image.name()
                    + "': sites " + new TreeSet<>(sites) + " hold the write, but the controller did not record them as holding its sync copies: "
                    + HeliotropeException.rootMessage(failure), failure));
        });
        return recording;
    }

    @Override
    public void close() {
        ended = true;
        tending.cancel(false);
        onClose.accept(this);
    }
}
