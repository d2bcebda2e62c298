package io.heliotrope.storage.peer;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.LocalCopies;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.view.ViewCache;
import io.heliotrope.version.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.function.Supplier;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * This site's side of {@link Peers}, without a transport: answers other sites' fetches from
 * the local store and stores their pushes (DESIGN.md sections 5 and 6). Store calls block,
 * so they run on the executor given, never on the caller's thread.
 *
 * <p>The local image for an {@link ImageRef} is the one of its name that is a copy of its
 * identity ({@link ImageInfo#isCopyOf}), looked up for every batch in the store's catalog,
 * which both stores keep in memory by name. So an image removed, or removed and created
 * again with another identity, is never served under the old one, and a copy made before
 * images had identities is found by its name as everywhere else on the site. A block the
 * image does not have (beyond its size) is not here, and a copy of it is not stored.
 *
 * <p>A push or fence for an image this site has no copy of makes the copy only when the
 * {@link CopyAdmission} admits it, with the size it gives (the controller's catalog's, not
 * the peer's); refused, no copy of the push is held. A copy that exists costs no such check.
 *
 * <p>For the recovery of a dead {@code sync} holding, the recovering site fences the dead
 * epochs here ({@link #fence}: pushed copies of them are refused from then on, across
 * restarts, as the fence is kept in the {@link ViewCache}) and then collects the copies of
 * those epochs ({@link #collect}), which it commits naming this site as their holder.
 */
public final class PeerService {
    private static final Logger log = LoggerFactory.getLogger(PeerService.class);

    private final BlockStore store;
    private final LocalCopies copies;
    private final ViewCache fences;
    private final PushPolicy policy;
    private final CopyAdmission admission;
    private final ExecutorService storeCalls;
    private final ExecutorService bulkCalls;
    /**
     * Pushes store under the read lock, a fence is raised under the write lock: once a fence
     * is raised, no push that read the lower one is still storing, so a collect that follows
     * finds every copy of the fenced epochs this site will ever hold.
     */
    private final ReadWriteLock fencing = new ReentrantReadWriteLock();
    /**
     * Makes pushed copies durable before a push is answered: the pushes that arrive together
     * share one sync of the store instead of one each (a sync write's copy is one push).
     */
    private final GroupSync durable;

    /**
     * @param fences the view cache of {@code store}, which keeps the fences
     * @param admission decides whether a peer may make this site's copy of an image, and its size
     * @param storeCalls runs the store calls of every request but background fetches
     * @param bulkCalls runs the store calls of background fetches (a pull's batches), so that
     *        foreground fetches never wait behind them: {@code site-peer-bulk}, one thread
     */
    public PeerService(BlockStore store, ViewCache fences, PushPolicy policy, CopyAdmission admission, ExecutorService storeCalls, ExecutorService bulkCalls) {
        this.store = requireNonNull(store, "store is null");
        this.copies = new LocalCopies(store);
        this.fences = requireNonNull(fences, "fences is null");
        this.policy = requireNonNull(policy, "policy is null");
        this.admission = requireNonNull(admission, "admission is null");
        this.storeCalls = requireNonNull(storeCalls, "storeCalls is null");
        this.bulkCalls = requireNonNull(bulkCalls, "bulkCalls is null");
        this.durable = new GroupSync(store::sync, storeCalls);
    }

    /**
     * The copies this site holds of {@code image} at exactly the versions wanted, in the
     * order asked: a block with data, or a zero marker without; any other block is left out.
     */
    public CompletableFuture<List<Copy>> fetch(ImageRef image, List<Wanted> wanted) {
        return call(image, () -> readCopies(image, wanted));
    }

    /** As {@link #fetch}, for a background pull's batch: on the executor of background fetches. */
    public CompletableFuture<List<Copy>> fetchInBackground(ImageRef image, List<Wanted> wanted) {
        return call(image, () -> readCopies(image, wanted), bulkCalls);
    }

    /**
     * Stores the copies that the push policy's rule accepts, durably, making this site's copy
     * of the image first when it has none and the admission allows. Refuses every copy when
     * another image (of another identity) holds the name here, or the admission refuses the
     * copy. Completes with, per copy, whether this site holds it now: stored, or a version at
     * least as new already here (pushes of one block may arrive out of order). A copy refused
     * by the fence or the policy is not held.
     */
    public CompletableFuture<boolean[]> push(ImageRef image, List<Copy> copies) {
        return withCopy(image, local -> storeCopies(image, local, copies), () -> new boolean[copies.size()])
                .thenCompose(held -> durable.request().thenApply(synced -> held));
    }

    /**
     * Refuses pushed copies of {@code image} from epochs below {@code belowEpoch} from now on,
     * durably, making this site's copy of the image first when it has none (as a push does);
     * completes with the fence in force once no push that was let through under a lower fence
     * is still storing. When the name is another image's here, or no copy may be made, no copy
     * of this one can land anyway.
     */
    public CompletableFuture<Long> fence(ImageRef image, long belowEpoch) {
        return withCopy(image, local -> raiseFence(image, local, belowEpoch), () -> belowEpoch);
    }

    /** The blocks whose local copy of {@code image} has a version of the epochs {@code firstEpoch} to {@code lastEpoch}, in block order. */
    public CompletableFuture<List<BlockVersion>> collect(ImageRef image, long firstEpoch, long lastEpoch) {
        return call(image, () -> {
            List<BlockVersion> found = new ArrayList<>();
            copyOf(image).ifPresent(local -> store.forEachBlock(local.id(), block -> {
                long epoch = Version.epochOf(block.version());
                if (epoch >= firstEpoch && epoch <= lastEpoch) {
                    found.add(block);
                }
            }));
            return found;
        });
    }

    private long raiseFence(ImageRef ref, Optional<ImageInfo> image, long belowEpoch) {
        fencing.writeLock().lock();
        try {
            if (image.isEmpty()) {
                return belowEpoch;
            }
            long fence = fences.raiseFence(image.get().id(), belowEpoch);
            log.info("{}: pushed copies from epochs below {} are refused from now on", ref.name(), fence);
            return fence;
        } finally {
            fencing.writeLock().unlock();
        }
    }

    private List<Copy> readCopies(ImageRef ref, List<Wanted> wanted) {
        Optional<ImageInfo> found = copyOf(ref);
        if (found.isEmpty()) {
            return List.of();
        }
        ImageInfo image = found.get();
        List<Wanted> asked = wanted.stream().filter(block -> inRange(image, block.block())).toList();
        ByteBuffer data = ByteBuffer.allocate(asked.size() * BLOCK_SIZE);
        List<BlockVersion> versions;
        try {
            versions = store.readCopies(image.id(), asked.stream().mapToLong(Wanted::block).toArray(), data);
        } catch (HeliotropeException e) {
            return ifRemoved(e, List.of());
        }
        List<Copy> copies = new ArrayList<>(asked.size());
        for (int i = 0; i < asked.size(); i++) {
            BlockVersion local = versions.get(i);
            if (local.version() != asked.get(i).version() || local.state() == BlockState.UNWRITTEN) {
                continue;
            }
            ByteBuffer block = local.state() == BlockState.ZERO ? null : data.slice(i * BLOCK_SIZE, BLOCK_SIZE);
            copies.add(new Copy(local.block(), local.version(), block));
        }
        return copies;
    }

    private boolean[] storeCopies(ImageRef ref, Optional<ImageInfo> found, List<Copy> copies) {
        boolean[] stored = new boolean[copies.size()];
        if (found.isEmpty()) {
            log.debug("{}: push of {} blocks refused: the name is another image's here, not a copy of {}", ref.name(), copies.size(), ref.identity());
            return stored;
        }
        ImageInfo image = found.get();
        List<Copy> taken = new ArrayList<>(copies.size());
        int[] positions = new int[copies.size()];
        for (int i = 0; i < copies.size(); i++) {
            if (inRange(image, copies.get(i).block())) {
                positions[taken.size()] = i;
                taken.add(copies.get(i));
            }
        }
        Map<Copy, Boolean> held = new IdentityHashMap<>();
        fencing.readLock().lock();
        try {
            long fence = fences.fence(image.id());
            CopyRule rule = policy.ruleFor(image);
            store.storeCopies(image.id(), taken, (copy, local) -> {
                boolean takes = Version.epochOf(copy.version()) >= fence && rule.accepts(copy, 0);
                boolean accepted = takes && rule.accepts(copy, local);
                held.put(copy, accepted || takes && local >= copy.version());
                return accepted;
            }, false);
        } catch (HeliotropeException e) {
            return ifRemoved(e, stored);
        } finally {
            fencing.readLock().unlock();
        }
        for (int i = 0; i < taken.size(); i++) {
            stored[positions[i]] = held.getOrDefault(taken.get(i), false);
        }
        return stored;
    }

    /**
     * Runs {@code work} where store calls run, on this site's copy of the image (empty when the
     * name is another image's here). When there is no copy, asks the admission first: refused,
     * the call completes with {@code refused}; admitted, the copy is made with the size it gives.
     */
    private <T> CompletableFuture<T> withCopy(ImageRef ref, Function<Optional<ImageInfo>, T> work, Supplier<T> refused) {
        return call(ref, () -> {
            // One look: a copy another push makes between two looks would otherwise read as another image's name here.
            ImageInfo found = copies.find(ref.name());
            return found == null ? Optional.<T>empty() : Optional.of(work.apply(Optional.of(found).filter(image -> image.isCopyOf(ref.identity()))));
        }).thenCompose(done -> done.isPresent() ? CompletableFuture.completedFuture(done.get()) : admission.sizeOf(ref).thenCompose(size -> size.isPresent()
                ? call(ref, () -> work.apply(copyFor(ref, size.getAsLong())))
                : CompletableFuture.completedFuture(refused.get())));
    }

    /** This site's copy of the image, made now with {@code sizeBytes} when there is none; empty when the name is another image's. */
    private Optional<ImageInfo> copyFor(ImageRef ref, long sizeBytes) {
        try {
            ImageInfo created = copies.create(ref.name(), ref.identity(), sizeBytes);
            log.info("{}: copy of image {} made for a peer, {} bytes as the controller's catalog has it", ref.name(), ref.identity(), sizeBytes);
            return Optional.of(created);
        } catch (HeliotropeException e) {
            if (e.code() != ErrorCode.IMAGE_EXISTS) {
                throw e;
            }
            return Optional.empty();
        }
    }

    /** This site's copy of the image, if it has one. */
    private Optional<ImageInfo> copyOf(ImageRef ref) {
        return Optional.ofNullable(copies.find(ref.name())).filter(image -> image.isCopyOf(ref.identity()));
    }

    /** Runs {@code work} where store calls run; an image without an identity is refused. */
    private <T> CompletableFuture<T> call(ImageRef image, Supplier<T> work) {
        return call(image, work, storeCalls);
    }

    private <T> CompletableFuture<T> call(ImageRef image, Supplier<T> work, ExecutorService executor) {
        if (image.identity() == null) {
            return CompletableFuture.failedFuture(noIdentity(image));
        }
        return BoundedExecutors.supplyAsync(work, executor, "peer service");
    }

    /** What a batch gets when its image is removed while it runs: nothing here, nothing stored. */
    private static <T> T ifRemoved(HeliotropeException e, T nothing) {
        if (e.code() != ErrorCode.IMAGE_NOT_FOUND) {
            throw e;
        }
        return nothing;
    }

    private static boolean inRange(ImageInfo image, long block) {
        return block >= 0 && block < image.blockCount();
    }

    private static HeliotropeException noIdentity(ImageRef image) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image " + image.name() + ": peers name images by their identity, and this one has none");
    }
}
