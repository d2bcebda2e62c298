package io.heliotrope.storage.propagation;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.Peers.ImageRef;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;

import static java.util.Objects.requireNonNull;

/**
 * The propagation manager of a site (DESIGN.md section 6, paper section 3.2.3): while an
 * image is open for write here, its blocks written since they were last sent are pushed
 * to the sites its VM is likely to move to, by priority {@code p = K * fr/fw + fr}, within
 * the image's cap and budget, and once it closes until what was queued then has gone. Only
 * {@link Replication.Mode#PROACTIVE} images push; the others are counted, so a change of
 * mode at run time pushes at once.
 */
public final class PropagationManager implements AutoCloseable {
    /** An image's blocks waiting to be pushed, and how long the one queued first has waited. */
    public record Backlog(long blocks, Duration oldest) {
        public static final Backlog NONE = new Backlog(0, Duration.ZERO);

        public Backlog {
            requireNonNull(oldest, "oldest is null");
        }

        /** The backlog of two sessions of one image: one closed, still pushing what it had queued. */
        Backlog plus(Backlog other) {
            return new Backlog(blocks + other.blocks, oldest.compareTo(other.oldest) >= 0 ? oldest : other.oldest);
        }
    }

    private final PushContext context;
    private final RandomGenerator.SplittableGenerator random;
    /** The propagations of images open for write here, and of those closed that still push what was queued. */
    private final Set<ImagePropagation> running = ConcurrentHashMap.newKeySet();

    /**
     * @param site this site's name, as in the transition tables
     * @param scheduler runs the pushers: {@code BoundedExecutors.scheduled("site-push", 1, ...)}
     *        with room for two tasks per open image (a step and a timer); its owner shuts it down
     * @param storeExecutor runs the store's reads of blocks to push; its owner shuts it down
     * @param random draws destinations; each image gets its own split of it
     */
    public PropagationManager(String site, BlockStore store, Peers peers, ScheduledExecutorService scheduler, ExecutorService storeExecutor,
            Clock clock, RandomGenerator.SplittableGenerator random, PropagationConfig config, PropagationMetrics metrics) {
        requireNonNull(config, "config is null");
        PeerBackoff backoff = new PeerBackoff(requireNonNull(clock, "clock is null"), config.firstBackoff(), config.longestBackoff(),
                requireNonNull(random, "random is null").split());
        this.context = new PushContext(site, store, peers, scheduler, storeExecutor, clock, config, metrics, backoff);
        this.random = requireNonNull(random, "random is null");
    }

    /**
     * Starts propagation of an image opened for write here, with counts from zero; once per
     * write session, closed when the session ends (after its final flush).
     *
     * @param guard which copies may go to which site now
     */
    public ImagePropagation open(ImageInfo image, PushGuard guard, Replication replication) {
        RandomGenerator imageRandom;
        synchronized (random) {
            imageRandom = random.split();
        }
        ImagePropagation propagation = new ImagePropagation(image, replication, guard, context, imageRandom, running::remove);
        running.add(propagation);
        return propagation;
    }

    /**
     * {@code site} opened {@code image} for write and pulls what it lacks (DESIGN.md section
     * 4): the sessions of the image closed here push it there no more; their drain goes on to
     * the other sites of their row, or ends when there is none.
     */
    public void yield(ImageRef image, String site) {
        requireNonNull(image, "image is null");
        requireNonNull(site, "site is null");
        for (ImagePropagation propagation : running) {
            if (propagation.isOf(image)) {
                propagation.yield(site);
            }
        }
    }

    /** The backlog of each image whose blocks wait to be pushed from here, open or closed since, by name. */
    public Map<String, Backlog> backlogs() {
        Map<String, Backlog> backlogs = new TreeMap<>();
        for (ImagePropagation propagation : running) {
            Backlog backlog = propagation.backlog();
            if (backlog.blocks() > 0) {
                backlogs.merge(propagation.image().name(), backlog, Backlog::plus);
            }
        }
        return backlogs;
    }

    /** Stops the pushes of every image, open or closed: what is queued stays unsent. */
    @Override
    public void close() {
        List.copyOf(running).forEach(ImagePropagation::end);
    }
}
