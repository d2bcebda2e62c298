package io.heliotrope.storage.peer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.session.Controller;
import io.heliotrope.storage.session.Controller.Recovery;
import io.heliotrope.storage.session.HoldingRecovery;
import io.heliotrope.storage.view.ViewCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The recovery of a dead {@code sync} holding (DESIGN.md section 4), run by the next site
 * to open the image for write, before it serves it:
 * <ol>
 *   <li>each recorded sync site fences the epochs below the new one ({@link Peers#fence}),
 *       so a late push from the dead writer can no longer replace what is recovered;</li>
 *   <li>then hands over the blocks it holds at versions of the dead epochs ({@link Peers#collect});</li>
 *   <li>per block, the highest version any site has that is newer than the committed one
 *       (or as new, when the committed one names a dead holder) is committed with one
 *       recovery flush naming that site as holder (this site first among equals), and
 *       applied to the view. Reads then fetch those blocks from their holders as usual.</li>
 * </ol>
 * This site asks itself through its own peer service when it is one of the sync sites.
 *
 * <p>Every acknowledged write is at every site of one recorded set, so one answering site
 * of each set is enough, and then the sites that do not answer are left unfenced (what
 * they hold is never committed). Should every site of some set stay silent, its writes
 * could be lost, and serving the image would silently roll them back: the open asks again
 * every {@link #RETRY} until its patience (the site's open wait) runs out, then fails with
 * {@code PEER_UNAVAILABLE}, naming the silent sites. The recovery stays owed, so a later
 * open, here or elsewhere, tries again.
 */
public final class SyncRecoverer implements HoldingRecovery {
    static final Duration RETRY = Duration.ofMillis(500);
    private static final Logger log = LoggerFactory.getLogger(SyncRecoverer.class);

    private final String site;
    private final Peers peers;
    private final Controller controller;
    private final ViewCache view;
    private final Duration patience;

    /** @param patience how long an open waits for the sync sites to answer (the site's open wait) */
    public SyncRecoverer(String site, Peers peers, Controller controller, ViewCache view, Duration patience) {
        this.site = requireNonNull(site, "site is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.controller = requireNonNull(controller, "controller is null");
        this.view = requireNonNull(view, "view is null");
        this.patience = requireNonNull(patience, "patience is null");
    }

    @Override
    public void recover(ImageInfo image, Controller.Opened opened) {
        Recovery owed = opened.recovery();
        if (!owed.pending()) {
            return;
        }
        Map<String, List<BlockVersion>> answers = collect(ImageRef.of(image), opened.epoch(), owed);
        List<GlobalBlock> entries = newerThanCommitted(image, owed, highest(answers));
        long metaSeq = controller.recover(image.name(), opened.epoch(), entries);
        view.apply(image.id(), metaSeq, false, entries);
        log.info("{}: recovered {} blocks of the dead holding of {} (epochs {} to {}) from sites {} (metaSeq {})",
                image.name(), entries.size(), owed.deadHolders(), owed.firstEpoch(), owed.lastEpoch(), answers.keySet(), metaSeq);
    }

    /** Fences and collects at the sync sites until one of each set has answered, or patience runs out. */
    private Map<String, List<BlockVersion>> collect(ImageRef image, long epoch, Recovery owed) {
        long deadline = System.nanoTime() + patience.toNanos();
        Map<String, List<BlockVersion>> answers = new TreeMap<>();
        Map<String, String> silent = new TreeMap<>();
        while (true) {
            Map<String, CompletableFuture<List<BlockVersion>>> calls = new TreeMap<>();
            for (String sync : owed.sites()) {
                if (!answers.containsKey(sync)) {
                    calls.put(sync, peers.fence(sync, image, epoch).thenCompose(fence -> peers.collect(sync, image, owed.firstEpoch(), owed.lastEpoch())));
                }
            }
            calls.forEach((sync, call) -> {
                try {
                    answers.put(sync, call.join());
                    silent.remove(sync);
                } catch (CompletionException e) {
                    silent.put(sync, HeliotropeException.rootMessage(e));
                }
            });
            if (owed.syncSites().stream().allMatch(set -> set.stream().anyMatch(answers::containsKey))) {
                if (!silent.isEmpty()) {
                    log.warn("{}: recovering without sync sites {}, which did not answer; each set that took copies has another that did",
                            image.name(), silent);
                }
                return answers;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + image.name() + "': its last writer " + owed.deadHolders()
                        + " died with acknowledged writes (epochs " + owed.firstEpoch() + " to " + owed.lastEpoch() + ") that only sites "
                        + owed.sites() + " hold, and " + answers.size() + " of them answer: the image cannot open before one site of each of "
                        + owed.syncSites() + " does, lest it lose those writes (" + silent + ")");
            }
            pause(Math.min(left, RETRY.toNanos()));
        }
    }

    /** Per block, the highest version found, held by the site that has it (this one first among equals). */
    private Map<Long, GlobalBlock> highest(Map<String, List<BlockVersion>> answers) {
        Map<Long, GlobalBlock> highest = new TreeMap<>();
        answers.forEach((holder, blocks) -> {
            for (BlockVersion block : blocks) {
                GlobalBlock found = new GlobalBlock(block.block(), block.version(), block.state() == BlockState.ZERO ? null : holder);
                highest.merge(block.block(), found, (known, other) -> other.version() > known.version()
                        || (other.version() == known.version() && site.equals(other.holder())) ? other : known);
            }
        });
        return highest;
    }

    /**
     * The versions to commit: newer than the committed ones, or as new when the committed one
     * names a dead holder (the same data, at a site that answers).
     */
    private List<GlobalBlock> newerThanCommitted(ImageInfo image, Recovery owed, Map<Long, GlobalBlock> highest) {
        Set<String> dead = Set.copyOf(owed.deadHolders());
        List<GlobalBlock> entries = new ArrayList<>();
        for (GlobalBlock found : highest.values()) {
            GlobalBlock committed = view.entry(image.id(), found.block());
            if (committed == null || found.version() > committed.version()
                    || (found.version() == committed.version() && !committed.zero() && dead.contains(committed.holder()) && !committed.holder().equals(site))) {
                entries.add(found);
            }
        }
        return entries;
    }

    private static void pause(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "interrupted while waiting for sync sites to answer");
        }
    }
}
