package io.heliotrope.storage.peer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.session.Controller.CatalogImage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * A peer's push or fence makes this site's copy of an image only when the controller's
 * catalog has an image of that name and identity, of the size the peer names, and the copy
 * gets the catalog's size (issue 27, "peers cannot forge data"). Anything else is refused,
 * counted ({@code heliotrope.peer.refused{reason}}) and logged at WARN, at most once a
 * minute per image. When the catalog cannot be asked, the call fails as retryable: the peer
 * tries again later, and nothing it named is trusted meanwhile.
 *
 * <p>Only the first push of an image asks: once the copy exists, its identity decides
 * ({@link PeerService}). Lookups of one name that overlap share one call.
 */
public final class CatalogCheck implements CopyAdmission {
    private static final Logger log = LoggerFactory.getLogger(CatalogCheck.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** Names remembered for the rate limit of warnings; forged names must not grow it without bound. */
    private static final int WARNED_NAMES = 1024;

    /** Why a copy was refused, as the metric's {@code reason} tag has it. */
    public enum Reason {
        UNKNOWN_IMAGE,
        IDENTITY,
        SIZE,
        CATALOG_UNAVAILABLE
    }

    /** One image of the controller's catalog: fails with {@code IMAGE_NOT_FOUND} when there is none. */
    @FunctionalInterface
    public interface Lookup {
        CompletableFuture<CatalogImage> image(String name);
    }

    private final Lookup catalog;
    private final Map<Reason, Counter> refused = new EnumMap<>(Reason.class);
    private final Map<String, CompletableFuture<CatalogImage>> asking = new ConcurrentHashMap<>();
    private final Map<String, Long> warned = new ConcurrentHashMap<>();

    public CatalogCheck(Lookup catalog, MeterRegistry registry) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        for (Reason reason : Reason.values()) {
            refused.put(reason, Counter.builder("heliotrope.peer.refused").tag("reason", reason.name().toLowerCase(Locale.ROOT))
                    .description("Pushes and fences of peers for an image this site had no copy of, refused: not in the controller's catalog as named,"
                            + " or the catalog could not be asked")
                    .register(registry));
        }
    }

    @Override
    public CompletableFuture<OptionalLong> sizeOf(ImageRef image) {
        return lookUp(image.name()).handle((found, failure) -> {
            if (failure == null) {
                return sizeOf(image, found);
            }
            Throwable cause = HeliotropeException.unwrap(failure);
            if (cause instanceof HeliotropeException e && e.code() == ErrorCode.IMAGE_NOT_FOUND) {
                return refuse(image, Reason.UNKNOWN_IMAGE, "the controller's catalog has no image of this name");
            }
            refuse(image, Reason.CATALOG_UNAVAILABLE, "the controller's catalog could not be asked (" + HeliotropeException.rootMessage(cause) + "), the peer retries");
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE,
                    "image " + image.name() + ": no copy is made for a peer before the controller's catalog confirms the image, and it could not be asked", cause);
        });
    }

    private OptionalLong sizeOf(ImageRef image, CatalogImage found) {
        if (!found.identity().equals(image.identity())) {
            return refuse(image, Reason.IDENTITY, "the peer named image " + image.identity() + ", the catalog's of this name is " + found.identity());
        }
        if (found.sizeBytes() != image.sizeBytes()) {
            return refuse(image, Reason.SIZE, "the peer named " + image.sizeBytes() + " bytes, the catalog has " + found.sizeBytes());
        }
        return OptionalLong.of(found.sizeBytes());
    }

    private OptionalLong refuse(ImageRef image, Reason reason, String why) {
        refused.get(reason).increment();
        long now = System.nanoTime();
        Long last = warned.get(image.name());
        if (last == null || now - last >= WARN_EVERY_NANOS) {
            if (warned.size() >= WARNED_NAMES) {
                warned.clear();
            }
            warned.put(image.name(), now);
            log.warn("{}: a peer's push or fence refused, no copy made here: {} (logged once a minute per image)", image.name(), why);
        }
        return OptionalLong.empty();
    }

    /** The catalog's image of that name, one call for lookups that overlap. */
    private CompletableFuture<CatalogImage> lookUp(String name) {
        CompletableFuture<CatalogImage> mine = new CompletableFuture<>();
        CompletableFuture<CatalogImage> asked = asking.putIfAbsent(name, mine);
        if (asked != null) {
            return asked;
        }
        mine.whenComplete((image, failure) -> asking.remove(name, mine));
        try {
            catalog.image(name).whenComplete((image, failure) -> {
                if (failure != null) {
                    mine.completeExceptionally(failure);
                } else {
                    mine.complete(image);
                }
            });
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
        }
        return mine;
    }
}
