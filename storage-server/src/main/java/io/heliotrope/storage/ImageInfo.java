package io.heliotrope.storage;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * An image as the store knows it: a local id, its name, size, creation time (to the
 * millisecond) and identity. The identity is that of the controller's image this is a
 * copy of ({@code uuid} in its catalog); null for a standalone site's image and for a
 * copy made before identities. Blocks, dirty entries and the view are keyed by the local
 * id, never by the name.
 */
public record ImageInfo(long id, String name, long sizeBytes, Instant created, UUID identity) {
    public ImageInfo {
        requireNonNull(name, "name is null");
        // Stores keep milliseconds: an image reads back equal to the one created.
        created = requireNonNull(created, "created is null").truncatedTo(ChronoUnit.MILLIS);
    }

    /**
     * Whether this is a copy of the controller's image {@code identity}. A copy made before
     * images had identities has none, and is taken for a copy of the image of its name: it
     * may hold the only copy of blocks that no other site can give it yet. Never a copy of
     * a null identity: an image the catalog does not have.
     */
    public boolean isCopyOf(UUID identity) {
        return identity != null && (this.identity == null || this.identity.equals(identity));
    }

    public ImageInfo resized(long sizeBytes) {
        return new ImageInfo(id, name, sizeBytes, created, identity);
    }

    public long blockCount() {
        return sizeBytes / BlockStore.BLOCK_SIZE;
    }
}
