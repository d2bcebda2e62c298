package io.heliotrope.storage.view;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The fetcher of a site without a controller, which knows of no other site: every fetch fails with {@code BLOCK_NOT_LOCAL}. */
public final class LocalOnlyFetcher implements BlockFetcher {
    @Override
    public List<CompletableFuture<Void>> fetch(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace) {
        return blocks.stream().map(block -> CompletableFuture.<Void>failedFuture(new HeliotropeException(ErrorCode.BLOCK_NOT_LOCAL, "image '"
                + image.name() + "': block " + block.block() + " is current only at site '" + block.holder() + "' (version " + block.version()
                + "), and this site cannot fetch blocks from other sites"))).toList();
    }
}
