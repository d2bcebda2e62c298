package io.heliotrope.storage.view;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.ImageInfo;

import java.util.concurrent.CompletableFuture;

/** The fetcher of a site that cannot reach other sites yet: every fetch fails with {@code BLOCK_NOT_LOCAL}. */
public final class LocalOnlyFetcher implements BlockFetcher {
    @Override
    public CompletableFuture<Void> fetch(ImageInfo image, long block, long version, String holder) {
        return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.BLOCK_NOT_LOCAL, "image '" + image.name() + "': block " + block
                + " is current only at site '" + holder + "' (version " + version + "), and this site cannot fetch blocks from other sites yet"));
    }
}
