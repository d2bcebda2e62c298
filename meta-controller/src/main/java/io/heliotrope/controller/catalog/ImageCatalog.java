package io.heliotrope.controller.catalog;

import io.heliotrope.controller.Names;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.lease.LeaseMoves;
import io.heliotrope.controller.metadata.MetaState;
import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.MultiOutcome;
import io.heliotrope.controller.zookeeper.Transaction;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.image.ImageNames;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * The image catalog. An image exists while its {@code config} znode does: creation makes
 * the whole subtree in one transaction, deletion removes {@code config} first (atomically
 * with a check that nobody holds the lease), then the rest.
 */
public final class ImageCatalog {
    private static final Logger log = LoggerFactory.getLogger(ImageCatalog.class);
    private static final int MAX_ATTEMPTS = 16;
    private static final byte[] EMPTY = new byte[0];

    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;
    private final Clock clock;
    private final Duration leaseTtl;

    public ImageCatalog(ZooKeeperStore zk, ZooKeeperLayout layout, Clock clock, Duration leaseTtl) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.leaseTtl = requireNonNull(leaseTtl, "leaseTtl is null");
    }

    public ImageConfig create(ImageSpec spec) {
        ImageConfig config = spec.toConfig(clock.millis(), UUID.randomUUID());
        ImagePaths paths = layout.image(config.name());
        Transaction create = new Transaction()
                .create(paths.image(), EMPTY)
                .create(paths.config(), Json.write(config))
                .create(paths.lease(), Json.write(Lease.none(leaseTtl)))
                .create(paths.meta(), Json.write(MetaState.EMPTY))
                .create(paths.log(), EMPTY)
                .create(paths.snapshots(), EMPTY)
                .create(paths.staging(), EMPTY);
        MultiOutcome outcome = zk.commit(create);
        boolean exists = outcome.code() == KeeperException.Code.NODEEXISTS;
        if (exists && outcome.failedAt(0) && zk.read(paths.config()).isEmpty()) {
            log.warn("{}: removing what an interrupted deletion left", config.name());
            zk.deleteTree(paths.image());
            outcome = zk.commit(create);
            exists = outcome.code() == KeeperException.Code.NODEEXISTS;
        }
        if (exists) {
            throw new HeliotropeException(ErrorCode.IMAGE_EXISTS, "image '" + config.name() + "' already exists");
        }
        if (!outcome.committed()) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + config.name() + "': ZooKeeper refused its creation ("
                    + outcome.code() + " at operation " + outcome.failedOp() + ")");
        }
        log.info("{}: created ({} bytes, {}, identity {})", config.name(), config.sizeBytes(), config.mode(), config.uuid());
        return config;
    }

    /**
     * The configuration, with the config znode's creation zxid telling this image from an
     * earlier one of the same name. A config from before identities gets its identity here,
     * by compare-and-set, so every reader sees the one that won.
     */
    public Versioned<ImageConfig> get(String name) {
        String path = layout.image(ImageNames.check(name)).config();
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<ImageConfig> config = zk.readJson(path, ImageConfig.class).orElseThrow(() -> Names.imageNotFound(name));
            if (config.value().uuid() != null) {
                return config;
            }
            ImageConfig identified = config.value().withUuid(UUID.randomUUID());
            if (zk.setData(path, Json.write(identified), config.version())) {
                log.info("{}: identity {} given to an image created before identities", name, identified.uuid());
                return new Versioned<>(identified, config.version() + 1, config.createZxid());
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + name + "': its config kept changing while it was given an identity; try again");
    }

    /** The configuration and the lease moves counted so far. */
    public CatalogImage image(String name) {
        ImageConfig config = get(name).value();
        return new CatalogImage(config, zk.readJson(layout.image(name).moves(), LeaseMoves.class).map(Versioned::value).orElse(LeaseMoves.NONE));
    }

    public List<CatalogImage> list() {
        List<ImagePaths> images = zk.children(layout.images()).stream().map(layout::image).toList();
        List<Optional<byte[]>> configs = zk.readAll(images.stream().map(ImagePaths::config).toList());
        List<Optional<byte[]>> moves = zk.readAll(images.stream().map(ImagePaths::moves).toList());
        List<CatalogImage> list = new ArrayList<>(images.size());
        for (int i = 0; i < images.size(); i++) {
            if (configs.get(i).isPresent()) {
                ImageConfig config = Json.read(configs.get(i).get(), ImageConfig.class, images.get(i).config());
                list.add(new CatalogImage(config.uuid() != null ? config : get(config.name()).value(), moves(images.get(i).moves(), moves.get(i))));
            }
        }
        return list;
    }

    /** Changes the replication settings by compare-and-set on the config; returns the config as written. */
    public ImageConfig set(String name, ReplicationUpdate update) {
        ImageConfig config = update(name, current -> current.with(update));
        log.info("{}: replication now {}, K {}, S {}, home '{}', {} sync copies (min {}), cap {} B/s, budget {} B/day, pull {}, hint {}", name,
                config.mode(), config.k(), config.s(), config.home(), config.syncCopies(), config.syncMinCopies(), config.bandwidthBytesPerSecond(),
                config.budgetBytesPerDay(),
                config.pull(), config.transitions());
        return config;
    }

    /** Makes {@code site} the image's home unless it has one; returns the image as it is then. */
    public CatalogImage claimHome(String name, String site) {
        CatalogImage image = image(name);
        if (!image.config().home().isEmpty()) {
            return image;
        }
        ImageConfig config = update(name, current -> current.home().isEmpty() ? current.with(ReplicationUpdate.home(site)) : current);
        log.info("{}: home is {}, its first writer", name, config.home());
        return new CatalogImage(config, image.moves());
    }

    private ImageConfig update(String name, UnaryOperator<ImageConfig> change) {
        String path = layout.image(ImageNames.check(name)).config();
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<ImageConfig> current = get(name);
            ImageConfig next = change.apply(current.value());
            if (next.equals(current.value()) || zk.setData(path, Json.write(next), current.version())) {
                return next;
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + name + "': its config kept changing while being updated; try again");
    }

    private static LeaseMoves moves(String path, Optional<byte[]> data) {
        return data.map(bytes -> Json.read(bytes, LeaseMoves.class, path)).orElse(LeaseMoves.NONE);
    }

    /** Deletes the image and all its metadata; refused with {@code IMAGE_IN_USE} while a live write lease is held. */
    public void delete(String name) {
        ImagePaths paths = layout.image(ImageNames.check(name));
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Lease> lease = zk.readJson(paths.lease(), Lease.class).orElseThrow(() -> Names.imageNotFound(name));
            Lease current = lease.value();
            if (current.activeAt(clock.millis())) {
                throw new HeliotropeException(ErrorCode.IMAGE_IN_USE, "image '" + name + "' is open for writing at site "
                        + current.holder() + " (epoch " + current.epoch() + "); close it or wait for its lease to expire");
            }
            MultiOutcome outcome = zk.commit(new Transaction().check(paths.lease(), lease.version()).delete(paths.config(), -1));
            if (outcome.committed()) {
                zk.deleteTree(paths.image());
                log.info("{}: deleted", name);
                return;
            }
            if (outcome.code() == KeeperException.Code.NONODE) {
                throw Names.imageNotFound(name);
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + name + "': its lease kept changing during deletion; try again");
    }
}
