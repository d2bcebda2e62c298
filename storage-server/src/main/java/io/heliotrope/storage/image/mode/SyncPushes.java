package io.heliotrope.storage.image.mode;

import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.Peers.ImageRef;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The copies of one image's sync writes on their way to each site, coalesced: a write goes
 * out at once while fewer than {@link #IN_FLIGHT} pushes to its site are under way, and
 * otherwise joins the writes that wait for the next one to end, which carries them all
 * (up to {@link #MOST_BLOCKS} blocks) in one push. A lone write never waits; 32 writes in
 * flight cost a few pushes, each one call, one store write and one shared sync at the site,
 * instead of 32 (the CPU of a push, at both ends and in the emulated WAN, was most of a
 * sync write's).
 */
final class SyncPushes {
    /** Pushes to one site under way at once, before writes wait to go together. */
    static final int IN_FLIGHT = 2;
    /** The most blocks in one push (4 MiB of data): a write larger than that goes alone. */
    static final int MOST_BLOCKS = 1024;

    private final Peers peers;
    private final ImageRef image;
    private final SyncMetrics metrics;
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    SyncPushes(Peers peers, ImageRef image, SyncMetrics metrics) {
        this.peers = requireNonNull(peers, "peers is null");
        this.image = requireNonNull(image, "image is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    /** Pushes {@code copies} to {@code site}: completes as {@link Peers#push} does, with per copy whether the site holds it. */
    CompletableFuture<boolean[]> push(String site, List<Copy> copies) {
        Waiting write = new Waiting(copies, new CompletableFuture<>());
        lanes.computeIfAbsent(site, Lane::new).add(write);
        return write.held();
    }

    private record Waiting(List<Copy> copies, CompletableFuture<boolean[]> held) {}

    /** The pushes to one site. */
    private final class Lane {
        private final String site;
        /** Guarded by this. */
        private final Queue<Waiting> waiting = new ArrayDeque<>();
        /** Guarded by this. */
        private int inFlight;

        Lane(String site) {
            this.site = site;
        }

        void add(Waiting write) {
            synchronized (this) {
                waiting.add(write);
            }
            sendWhileRoom();
        }

        private void sendWhileRoom() {
            while (true) {
                List<Waiting> batch = new ArrayList<>();
                synchronized (this) {
                    if (inFlight >= IN_FLIGHT || waiting.isEmpty()) {
                        return;
                    }
                    int blocks = 0;
                    while (!waiting.isEmpty() && (batch.isEmpty() || blocks + waiting.peek().copies().size() <= MOST_BLOCKS)) {
                        Waiting next = waiting.remove();
                        blocks += next.copies().size();
                        batch.add(next);
                    }
                    inFlight++;
                }
                send(batch);
            }
        }

        private void send(List<Waiting> batch) {
            Merged merged = Merged.of(batch);
            metrics.pushed();
            CompletableFuture<boolean[]> pushed;
            try {
                pushed = peers.push(site, image, merged.copies());
            } catch (RuntimeException e) {
                pushed = CompletableFuture.failedFuture(e);
            }
            pushed.whenComplete((held, failure) -> {
                synchronized (this) {
                    inFlight--;
                }
                merged.answer(batch, held, failure);
                sendWhileRoom();
            });
        }
    }

    /**
     * The copies of several writes as one push: a block written by more than one of them goes
     * once, at its newest version, and an older write of it counts as held when the newest is
     * (a version at least as new is there, as a push that arrives late is answered). A lone
     * write goes as it is, and the push's answer is its own ({@code positions} null).
     */
    private record Merged(List<Copy> copies, int[][] positions) {
        static Merged of(List<Waiting> batch) {
            if (batch.size() == 1) {
                return new Merged(batch.get(0).copies(), null);
            }
            List<Copy> copies = new ArrayList<>();
            Map<Long, Integer> byBlock = new HashMap<>();
            int[][] positions = new int[batch.size()][];
            for (int w = 0; w < batch.size(); w++) {
                List<Copy> write = batch.get(w).copies();
                positions[w] = new int[write.size()];
                for (int i = 0; i < write.size(); i++) {
                    Copy copy = write.get(i);
                    Integer at = byBlock.putIfAbsent(copy.block(), copies.size());
                    if (at == null) {
                        positions[w][i] = copies.size();
                        copies.add(copy);
                    } else {
                        positions[w][i] = at;
                        if (copies.get(at).version() < copy.version()) {
                            copies.set(at, copy);
                        }
                    }
                }
            }
            return new Merged(copies, positions);
        }

        void answer(List<Waiting> batch, boolean[] held, Throwable failure) {
            for (int w = 0; w < batch.size(); w++) {
                CompletableFuture<boolean[]> answer = batch.get(w).held();
                if (failure != null) {
                    answer.completeExceptionally(failure);
                    continue;
                }
                if (positions == null) {
                    answer.complete(held);
                    continue;
                }
                boolean[] own = new boolean[positions[w].length];
                for (int i = 0; i < own.length; i++) {
                    own[i] = held[positions[w][i]];
                }
                answer.complete(own);
            }
        }
    }
}
