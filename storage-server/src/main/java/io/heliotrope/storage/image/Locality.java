package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.MetaContext;
import io.heliotrope.storage.view.DataView.Place;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code heliotrope:locality} metadata context: per extent, whether this site's copy
 * is current ({@value #HERE}), must be fetched from another site first ({@value #ELSEWHERE}),
 * or reads as zeros with nothing to fetch ({@value #ZERO}). With it,
 * {@code nbdinfo --map=heliotrope:locality nbd://HOST:PORT/IMAGE} shows where an image's
 * blocks are read from at that site.
 */
public final class Locality implements MetaContext {
    public static final String NAME = "heliotrope:locality";
    public static final int HERE = 0;
    public static final int ELSEWHERE = 1;
    public static final int ZERO = 2;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<List<BlockDescriptor>> blockStatus(BlockDevice device, long offset, long length) {
        if (device instanceof AbstractImageDevice located) {
            return located.locality(offset, length);
        }
        return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.INVALID_ARGUMENT, NAME + " describes only this site's images"));
    }

    static int flags(Place place) {
        return switch (place) {
            case HERE -> HERE;
            case ELSEWHERE -> ELSEWHERE;
            case NOWHERE -> ZERO;
        };
    }
}
