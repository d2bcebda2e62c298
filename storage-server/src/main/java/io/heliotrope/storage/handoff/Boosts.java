package io.heliotrope.storage.handoff;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.image.mode.ModeReplicators;
import io.heliotrope.storage.propagation.ImagePropagation;
import io.heliotrope.storage.propagation.PropagationManager;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.Replicator;
import io.heliotrope.storage.view.ViewCache;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The boost at the source of a handoff (DESIGN.md section 4, step 2): every block whose
 * current version the destination lacks goes there first, through a propagation of its own
 * that pushes only there, whatever the image's mode, S or transition row (its cap still
 * applies). Dirty blocks go before clean ones, then by reads; blocks written here after
 * the boost began join it. As a {@link ReplicatorFactory} it decorates the mode's, so that
 * each open image's reads and writes reach its boost, if any.
 */
public final class Boosts implements ReplicatorFactory {
    private final String site;
    private final BlockStore store;
    private final ViewCache view;
    private final PropagationManager propagation;
    private final ReplicatorFactory modes;
    private final Map<String, Boost> boosts = new ConcurrentHashMap<>();

    record Boost(String to, ImagePropagation pushes) {}

    /** @param modes the replication modes' replicators, which this decorates */
    public Boosts(String site, BlockStore store, ViewCache view, PropagationManager propagation, ReplicatorFactory modes) {
        this.site = requireNonNull(site, "site is null");
        this.store = requireNonNull(store, "store is null");
        this.view = requireNonNull(view, "view is null");
        this.propagation = requireNonNull(propagation, "propagation is null");
        this.modes = requireNonNull(modes, "modes is null");
    }

    @Override
    public Replicator open(ImageSession session) {
        Replicator mode = modes.open(session);
        String name = session.info().name();
        return new Replicator() {
            @Override
            public void read(long first, long count) {
                mode.read(first, count);
                Boost boost = boosts.get(name);
                if (boost != null) {
                    boost.pushes().recordRead(first, count);
                }
            }

            @Override
            public CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
                Boost boost = boosts.get(name);
                if (boost != null) {
                    boost.pushes().recordWrite(first, count);
                }
                return mode.wrote(first, count, version, data);
            }

            @Override
            public CompletableFuture<Void> flush(Supplier<CompletableFuture<Void>> storeSync) {
                return mode.flush(storeSync);
            }

            @Override
            public void close() {
                mode.close();
            }
        };
    }

    /**
     * Starts (or widens) the boost of {@code session}'s image to {@code to}, which holds
     * {@code blocks} at {@code versions}: every block current here whose version differs is
     * queued. Returns how many were.
     */
    long boost(ImageSession session, String to, long[] blocks, long[] versions) {
        ImageInfo image = session.info();
        if (to.equals(site)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image.name() + "': cannot boost to this site itself");
        }
        Boost boost = boosts.compute(image.name(), (name, running) -> running != null && running.to().equals(to) ? running
                : new Boost(to, propagation.open(image, ModeReplicators.guard(view, image), towards(session.replication(), to))));
        Map<Long, Long> held = new HashMap<>(blocks.length * 2);
        for (int i = 0; i < blocks.length; i++) {
            held.put(blocks[i], versions[i]);
        }
        Set<Long> dirty = new HashSet<>();
        store.dirtyBlocks(image.id()).forEach(block -> dirty.add(block.block()));
        long[] queued = {0};
        store.forEachBlock(image.id(), (BlockVersion block) -> {
            if (block.state() != BlockState.UNWRITTEN && session.stale(block.block(), 1).isEmpty()
                    && held.getOrDefault(block.block(), 0L) != block.version()) {
                boost.pushes().recordWrite(block.block(), 1);
                if (dirty.contains(block.block())) {
                    // A read on top ranks it before the clean blocks: it is the likeliest missing at the destination.
                    boost.pushes().recordRead(block.block(), 1);
                }
                queued[0]++;
            }
        });
        return queued[0];
    }

    /** The image's settings for a boost: only {@code to}, every queued block pushable, within the image's cap. */
    private Replication towards(Replication image, String to) {
        return new Replication(Replication.Mode.PROACTIVE, image.k(), 0, image.home(), 0, 0, image.bandwidthBytesPerSecond(), 0,
                Map.of(site, Map.of(to, 1.0)), false);
    }

    Optional<Boost> of(String image) {
        return Optional.ofNullable(boosts.get(image));
    }

    /** Stops the boost of {@code image}: what is queued stays for the destination to fetch. Returns the blocks left. */
    long stop(String image) {
        Boost boost = boosts.remove(image);
        if (boost == null) {
            return 0;
        }
        long left = boost.pushes().backlogBlocks();
        boost.pushes().end();
        return left;
    }
}
