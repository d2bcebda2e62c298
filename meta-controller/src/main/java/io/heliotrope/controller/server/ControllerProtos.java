package io.heliotrope.controller.server;

import io.heliotrope.controller.catalog.CatalogImage;
import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.catalog.ImageSpec;
import io.heliotrope.controller.catalog.PropagationMode;
import io.heliotrope.controller.catalog.PullMode;
import io.heliotrope.controller.catalog.ReplicationUpdate;
import io.heliotrope.controller.catalog.TransitionTable;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.metadata.Locality;
import io.heliotrope.controller.service.ImageStatus;
import io.heliotrope.controller.rtt.RttRow;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.site.Site;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.BlockMetadata;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.ImageLocality;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.ReportRttRequest;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SiteSet;
import io.heliotrope.proto.controller.v1.SyncRecovery;
import io.heliotrope.proto.controller.v1.TransitionCount;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Conversions between the controller's domain and {@code heliotrope.controller.v1}. */
public final class ControllerProtos {
    private ControllerProtos() {}

    static Site site(io.heliotrope.proto.controller.v1.Site proto) {
        return new Site(proto.getName(), proto.getGrpcAddress(), proto.getNbdAddress(), proto.getEgressPricePerGb(), proto.getVmMemoryBytes(),
                proto.getIntraSiteRttMicros());
    }

    public static io.heliotrope.proto.controller.v1.Site toProto(Site site) {
        return io.heliotrope.proto.controller.v1.Site.newBuilder()
                .setName(site.name())
                .setGrpcAddress(site.grpcAddress())
                .setNbdAddress(site.nbdAddress())
                .setEgressPricePerGb(site.egressPricePerGb())
                .setVmMemoryBytes(site.vmMemoryBytes())
                .setIntraSiteRttMicros(site.intraSiteRttMicros())
                .build();
    }

    static ImageSpec spec(CreateImageRequest request) {
        return new ImageSpec(request.getName(), request.getSizeBytes(), update(request.getReplication()));
    }

    /** The settings a request sets; an unset field (proto3 {@code optional}) is null. */
    static ReplicationUpdate update(ReplicationSettings proto) {
        return new ReplicationUpdate(
                proto.hasMode() ? mode(proto.getMode()) : null,
                proto.hasKFactor() ? proto.getKFactor() : null,
                proto.hasSRatio() ? proto.getSRatio() : null,
                proto.hasHome() ? proto.getHome() : null,
                proto.hasSyncCopies() ? proto.getSyncCopies() : null,
                proto.hasBandwidthBytesPerSecond() ? proto.getBandwidthBytesPerSecond() : null,
                proto.hasBudgetBytesPerDay() ? proto.getBudgetBytesPerDay() : null,
                proto.hasTransitions() ? transitions(proto.getTransitions()) : null,
                proto.hasPull() ? pull(proto.getPull()) : null,
                proto.hasSyncMin() ? proto.getSyncMin() : null);
    }

    static io.heliotrope.proto.controller.v1.ImageConfig toProto(CatalogImage image) {
        ImageConfig config = image.config();
        TransitionTable.Filled transitions = image.transitions();
        io.heliotrope.proto.controller.v1.ImageConfig.Builder proto = io.heliotrope.proto.controller.v1.ImageConfig.newBuilder()
                .setName(config.name())
                .setSizeBytes(config.sizeBytes())
                .setBlockSize(config.blockSize())
                .setCreatedEpochMillis(config.createdEpochMillis())
                .setMode(toProto(config.mode()))
                .setKFactor(config.k())
                .setSRatio(config.s())
                .setHome(config.home())
                .setSyncCopies(config.syncCopies())
                .setSyncMin(config.syncMinCopies())
                .setSyncMinSet(config.syncMin() != 0)
                .setBandwidthBytesPerSecond(config.bandwidthBytesPerSecond())
                .setBudgetBytesPerDay(config.budgetBytesPerDay())
                .setTransitions(toProto(transitions.table()))
                .addAllDefaultRows(transitions.defaultRows())
                .setTransitionHint(toProto(config.transitions()))
                .setUuid(config.uuid().toString())
                .setPull(toProto(config.pull()))
                .setPulls(config.pulls());
        image.moves().counts().forEach((from, row) -> row.forEach((to, moves) ->
                proto.addObservedMoves(TransitionCount.newBuilder().setFromSite(from).setToSite(to).setMoves(moves))));
        return proto.build();
    }

    public static RttMatrix toProto(List<RttRow> rows) {
        RttMatrix.Builder matrix = RttMatrix.newBuilder();
        for (RttRow row : rows) {
            io.heliotrope.proto.controller.v1.RttRow.Builder proto = matrix.addRowsBuilder()
                    .setSite(row.site())
                    .setMeasuredEpochMillis(row.measuredEpochMillis())
                    .setProbePeriodMillis(row.probePeriodMillis());
            row.rttMicros().forEach((peer, micros) -> proto.addPeers(PeerRtt.newBuilder().setPeer(peer).setRttMicros(micros)));
        }
        return matrix.build();
    }

    /** A site's report as peer to microseconds; a peer named twice is refused. */
    static Map<String, Long> rttMicros(ReportRttRequest request) {
        Map<String, Long> micros = new HashMap<>();
        for (PeerRtt peer : request.getPeersList()) {
            if (micros.put(peer.getPeer(), peer.getRttMicros()) != null) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "site " + request.getSite() + " reports peer " + peer.getPeer() + " twice");
            }
        }
        return micros;
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
                .setMovingExpiresEpochMillis(lease.movingExpiresEpochMillis())
                .setHandedFrom(lease.handedFrom())
                .addAllSyncSites(siteSets(lease.syncSites()))
                .setRecovery(SyncRecovery.newBuilder()
                        .addAllDeadHolders(lease.recovery().deadHolders())
                        .setFirstEpoch(lease.recovery().firstEpoch())
                        .setLastEpoch(lease.recovery().lastEpoch())
                        .addAllSyncSites(siteSets(lease.recovery().syncSites())))
                .build();
    }

    private static List<SiteSet> siteSets(List<List<String>> sets) {
        return sets.stream().map(set -> SiteSet.newBuilder().addAllSites(set).build()).toList();
    }

    public static io.heliotrope.proto.controller.v1.ImageStatus toProto(ImageStatus status) {
        io.heliotrope.proto.controller.v1.ImageStatus.Builder proto = io.heliotrope.proto.controller.v1.ImageStatus.newBuilder()
                .setConfig(toProto(status.image()))
                .setLease(toProto(status.image().config().name(), status.lease()))
                .setMetaSeq(status.metaSeq())
                .setSnapshotSeq(status.snapshotSeq())
                .setZeroBlocks(status.zeroBlocks())
                .setMetadataBytes(status.metadataBytes());
        status.currentBlocks().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> proto.addCurrentBlocks(SiteBlocks.newBuilder().setSite(entry.getKey()).setBlocks(entry.getValue())));
        return proto.build();
    }

    public static ImageLocality toProto(String image, Locality locality) {
        ImageLocality.Builder proto = ImageLocality.newBuilder()
                .setImage(image)
                .setMetaSeq(locality.metaSeq())
                .setRegionBytes(locality.regionBytes())
                .addAllSites(locality.sites());
        for (Locality.Region region : locality.regions()) {
            proto.addHolders(region.holder()).addShares(region.share());
        }
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
        return new Flush(header.getImage(), header.getSite(), header.getEpoch(), header.getRelease(), header.getMoveTo(), entries, header.getRecovery(),
                header.getFlushId());
    }

    private static PropagationMode mode(io.heliotrope.proto.controller.v1.PropagationMode mode) {
        return switch (mode) {
            case PROPAGATION_MODE_REMOTE -> PropagationMode.REMOTE;
            case PROPAGATION_MODE_SYNC -> PropagationMode.SYNC;
            case PROPAGATION_MODE_ON_DEMAND -> PropagationMode.ON_DEMAND;
            case PROPAGATION_MODE_PROACTIVE -> PropagationMode.PROACTIVE;
            case PROPAGATION_MODE_UNSPECIFIED, UNRECOGNIZED -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "unknown propagation mode " + mode + ": use PROPAGATION_MODE_PROACTIVE, _ON_DEMAND, _SYNC or _REMOTE");
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

    /** As set; unspecified (given, not left unset) goes back to the mode's default. */
    private static PullMode pull(io.heliotrope.proto.controller.v1.PullMode pull) {
        return switch (pull) {
            case PULL_MODE_UNSPECIFIED -> PullMode.UNSPECIFIED;
            case PULL_MODE_ON -> PullMode.ON;
            case PULL_MODE_OFF -> PullMode.OFF;
            case UNRECOGNIZED -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "unknown pull mode " + pull + ": use PULL_MODE_ON, _OFF or _UNSPECIFIED (the mode's default)");
        };
    }

    private static io.heliotrope.proto.controller.v1.PullMode toProto(PullMode pull) {
        return switch (pull) {
            case UNSPECIFIED -> io.heliotrope.proto.controller.v1.PullMode.PULL_MODE_UNSPECIFIED;
            case ON -> io.heliotrope.proto.controller.v1.PullMode.PULL_MODE_ON;
            case OFF -> io.heliotrope.proto.controller.v1.PullMode.PULL_MODE_OFF;
        };
    }

    private static io.heliotrope.proto.controller.v1.TransitionTable toProto(TransitionTable table) {
        return io.heliotrope.proto.controller.v1.TransitionTable.newBuilder()
                .addAllSites(table.sites())
                .addAllProbabilities(table.probabilities())
                .build();
    }

    private static TransitionTable transitions(io.heliotrope.proto.controller.v1.TransitionTable proto) {
        return new TransitionTable(proto.getSitesList(), proto.getProbabilitiesList());
    }
}
