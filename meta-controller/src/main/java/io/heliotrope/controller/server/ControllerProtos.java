package io.heliotrope.controller.server;

import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.catalog.ImageSpec;
import io.heliotrope.controller.catalog.PropagationMode;
import io.heliotrope.controller.catalog.TransitionTable;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.service.ImageStatus;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.site.Site;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.BlockMetadata;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.SiteBlocks;

import java.util.Map;

/** Conversions between the controller's domain and {@code heliotrope.controller.v1}. */
final class ControllerProtos {
    private ControllerProtos() {}

    static Site site(io.heliotrope.proto.controller.v1.Site proto) {
        return new Site(proto.getName(), proto.getGrpcAddress(), proto.getNbdAddress(), proto.getEgressPricePerGb());
    }

    static io.heliotrope.proto.controller.v1.Site toProto(Site site) {
        return io.heliotrope.proto.controller.v1.Site.newBuilder()
                .setName(site.name())
                .setGrpcAddress(site.grpcAddress())
                .setNbdAddress(site.nbdAddress())
                .setEgressPricePerGb(site.egressPricePerGb())
                .build();
    }

    static ImageSpec spec(CreateImageRequest request) {
        return new ImageSpec(request.getName(), request.getSizeBytes(), mode(request.getMode()), request.getK(), request.getS(),
                request.hasTransitions() ? transitions(request.getTransitions()) : null);
    }

    static io.heliotrope.proto.controller.v1.ImageConfig toProto(ImageConfig config) {
        return io.heliotrope.proto.controller.v1.ImageConfig.newBuilder()
                .setName(config.name())
                .setSizeBytes(config.sizeBytes())
                .setBlockSize(config.blockSize())
                .setCreatedEpochMillis(config.createdEpochMillis())
                .setMode(toProto(config.mode()))
                .setK(config.k())
                .setS(config.s())
                .setTransitions(io.heliotrope.proto.controller.v1.TransitionTable.newBuilder()
                        .addAllSites(config.transitions().sites())
                        .addAllProbabilities(config.transitions().probabilities()))
                .setUuid(config.uuid().toString())
                .build();
    }

    static io.heliotrope.proto.controller.v1.Lease toProto(String image, Lease lease) {
        return io.heliotrope.proto.controller.v1.Lease.newBuilder()
                .setImage(image)
                .setHolder(lease.holder())
                .setEpoch(lease.epoch())
                .setGrantEpoch(lease.grantEpoch())
                .setExpiresEpochMillis(lease.expiresEpochMillis())
                .setTtlMillis(lease.ttlMillis())
                .setMovingTo(lease.movingTo())
                .build();
    }

    static io.heliotrope.proto.controller.v1.ImageStatus toProto(ImageStatus status) {
        io.heliotrope.proto.controller.v1.ImageStatus.Builder proto = io.heliotrope.proto.controller.v1.ImageStatus.newBuilder()
                .setConfig(toProto(status.config()))
                .setLease(toProto(status.config().name(), status.lease()))
                .setMetaSeq(status.metaSeq())
                .setSnapshotSeq(status.snapshotSeq())
                .setZeroBlocks(status.zeroBlocks())
                .setMetadataBytes(status.metadataBytes());
        status.currentBlocks().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> proto.addCurrentBlocks(SiteBlocks.newBuilder().setSite(entry.getKey()).setBlocks(entry.getValue())));
        return proto.build();
    }

    static OpenMode openMode(io.heliotrope.proto.controller.v1.OpenMode mode) {
        return switch (mode) {
            case OPEN_MODE_WRITE -> OpenMode.WRITE;
            case OPEN_MODE_READ -> OpenMode.READ;
            case OPEN_MODE_UNSPECIFIED, UNRECOGNIZED -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "OpenImage needs mode OPEN_MODE_WRITE or OPEN_MODE_READ");
        };
    }

    static BlockMetadata toProto(BlockEntries entries) {
        BlockMetadata.Builder proto = BlockMetadata.newBuilder().addAllSites(entries.sites());
        for (int i = 0; i < entries.size(); i++) {
            proto.addBlocks(entries.block(i)).addVersions(entries.version(i)).addHolders(entries.holder(i));
        }
        return proto.build();
    }

    /** Adds a message's entries; its holder indexes refer to its own site table. */
    static void addEntries(BlockEntries.Builder builder, BlockMetadata proto) {
        int n = proto.getBlocksCount();
        if (proto.getVersionsCount() != n || proto.getHoldersCount() != n) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "block metadata columns differ in length: " + n + " blocks, "
                    + proto.getVersionsCount() + " versions, " + proto.getHoldersCount() + " holders");
        }
        int[] holders = new int[proto.getSitesCount() + 1];
        for (int j = 0; j < proto.getSitesCount(); j++) {
            holders[j + 1] = builder.site(proto.getSites(j));
        }
        for (int i = 0; i < n; i++) {
            int holder = proto.getHolders(i);
            if (holder < 0 || holder >= holders.length) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "block " + proto.getBlocks(i) + " names holder "
                        + Integer.toUnsignedString(holder) + ", but the message lists " + proto.getSitesCount() + " sites");
            }
            builder.add(proto.getBlocks(i), proto.getVersions(i), holders[holder]);
        }
    }

    static Flush flush(FlushHeader header, BlockEntries entries) {
        return new Flush(header.getImage(), header.getSite(), header.getEpoch(), header.getRelease(), header.getMoveTo(), entries);
    }

    private static PropagationMode mode(io.heliotrope.proto.controller.v1.PropagationMode mode) {
        return switch (mode) {
            case PROPAGATION_MODE_UNSPECIFIED -> null;
            case PROPAGATION_MODE_REMOTE -> PropagationMode.REMOTE;
            case PROPAGATION_MODE_SYNC -> PropagationMode.SYNC;
            case PROPAGATION_MODE_ON_DEMAND -> PropagationMode.ON_DEMAND;
            case PROPAGATION_MODE_PROACTIVE -> PropagationMode.PROACTIVE;
            case UNRECOGNIZED -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "unknown propagation mode");
        };
    }

    private static io.heliotrope.proto.controller.v1.PropagationMode toProto(PropagationMode mode) {
        return switch (mode) {
            case REMOTE -> io.heliotrope.proto.controller.v1.PropagationMode.PROPAGATION_MODE_REMOTE;
            case SYNC -> io.heliotrope.proto.controller.v1.PropagationMode.PROPAGATION_MODE_SYNC;
            case ON_DEMAND -> io.heliotrope.proto.controller.v1.PropagationMode.PROPAGATION_MODE_ON_DEMAND;
            case PROACTIVE -> io.heliotrope.proto.controller.v1.PropagationMode.PROPAGATION_MODE_PROACTIVE;
        };
    }

    private static TransitionTable transitions(io.heliotrope.proto.controller.v1.TransitionTable proto) {
        return new TransitionTable(proto.getSitesList(), proto.getProbabilitiesList());
    }
}
