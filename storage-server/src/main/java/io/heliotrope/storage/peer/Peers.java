package io.heliotrope.storage.peer;

import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.ImageInfo;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * What this site asks of the other sites (DESIGN.md sections 5 and 6): blocks at exact
 * versions, pushes of copies, and pings. Sites are named as in the controller's registry.
 * No call blocks its caller; failures are {@code HeliotropeException}s
 * ({@code PEER_UNAVAILABLE} for a site that does not answer in time, {@code SITE_NOT_FOUND}, ...).
 */
public interface Peers extends AutoCloseable {
    /**
     * Asks {@code site} for blocks of the image {@code image} at exactly the versions
     * wanted. Completes with the copies it has at those versions (data, or a zero marker
     * with no data), in the order asked; a block it does not have at that version is left out.
     */
    CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted);

    /** As {@link #fetch}, for a background pull: over connections of its own, served at {@code site} on a pool of its own. */
    default CompletableFuture<List<Copy>> fetchInBackground(String site, ImageRef image, List<Wanted> wanted) {
        return fetch(site, image, wanted);
    }

    /**
     * Pushes copies to {@code site}; completes with, per copy, whether that site holds it:
     * stored now, or a version at least as new was there already. A copy the site refuses
     * (its image open for write there, the copy's epoch fenced, the name another image's) is not held.
     */
    CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies);

    /**
     * As {@link #push(String, ImageRef, List)}, failing with {@code PEER_UNAVAILABLE} only after
     * {@code timeout} rather than the client's own: the pusher lets a push to a site that stopped
     * answering go on, so that what it carries lands once when the link heals. Peers without a
     * timeout of their own (in-process ones) answer as {@code push} does.
     */
    default CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies, Duration timeout) {
        return push(site, image, copies);
    }

    /**
     * Sync-mode recovery: has {@code site} refuse pushed copies of the image from epochs below
     * {@code belowEpoch} from now on ({@link PeerService#fence}); completes with the fence in force there.
     */
    CompletableFuture<Long> fence(String site, ImageRef image, long belowEpoch);

    /** Sync-mode recovery: the blocks whose copy at {@code site} has a version of the epochs {@code firstEpoch} to {@code lastEpoch}. */
    CompletableFuture<List<BlockVersion>> collect(String site, ImageRef image, long firstEpoch, long lastEpoch);

    /** One round trip to {@code site}'s peer service. */
    CompletableFuture<Duration> ping(String site);

    @Override
    void close();

    /** A block at the exact version wanted. */
    record Wanted(long block, long version) {}

    /**
     * An image as peers name it: by its identity, with the name and size a site needs to
     * make its copy when a push brings the first blocks of an image it has not opened.
     */
    record ImageRef(UUID identity, String name, long sizeBytes) {
        /** This site's copy of an image, as peers name it. */
        public static ImageRef of(ImageInfo image) {
            return new ImageRef(image.identity(), image.name(), image.sizeBytes());
        }
    }
}
