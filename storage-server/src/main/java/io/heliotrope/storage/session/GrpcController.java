package io.heliotrope.storage.session;

import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.controller.v1.AwaitHandoffRequest;
import io.heliotrope.proto.controller.v1.BlockMetadata;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.FlushRequest;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.LeaseRequest;
import io.heliotrope.proto.controller.v1.ListImagesRequest;
import io.heliotrope.proto.controller.v1.ListImagesResponse;
import io.heliotrope.proto.controller.v1.ListSitesRequest;
import io.heliotrope.proto.controller.v1.OpenImageRequest;
import io.heliotrope.proto.controller.v1.OpenImageResponse;
import io.heliotrope.proto.controller.v1.OpenMode;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.RecordSyncSitesRequest;
import io.heliotrope.proto.controller.v1.ReportRttRequest;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SyncRecovery;
import io.heliotrope.proto.controller.v1.TransitionTable;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.Replication;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The controllers over gRPC, as one site sees them: every call that can be repeated goes to
 * the next controller when the one in use does not answer ({@link ControllerChannels}); a
 * flush carries an id, so that the controller answers a repeat of one that went through
 * without applying it twice. Long waits (a handoff's, the catalog's) stay with the
 * controller in use.
 */
public final class GrpcController implements Controller {
    private static final long DEADLINE_SECONDS = 120;
    /** Well under any lease TTL: a renewal that takes longer is as good as lost. Shared by the controllers a renewal tries. */
    private static final long RENEW_DEADLINE_MILLIS = 5_000;
    /** But each one gets this much at least: a controller waits a moment for ZooKeeper when its leader changes. */
    private static final long RENEW_ATTEMPT_MIN_MILLIS = 1_500;
    private static final int BATCH = 65_536;

    private final String site;
    private final Duration openWait;
    private final SiteTraits traits;
    private final ControllerChannels controllers;
    private final long renewAttemptMillis;

    /** A controller whose opens fail at once while another site holds the write lease, for a site of the default traits. */
    public GrpcController(String site, String target) {
        this(site, List.of(target), Duration.ZERO, SiteTraits.DEFAULT);
    }

    /**
     * @param targets host:port of each controller, tried in this order
     * @param openWait how long an open waits for another site to release the write lease (close-to-open), at most 10 minutes
     * @param traits what {@link #register} tells the controller of the site beside its addresses
     */
    public GrpcController(String site, List<String> targets, Duration openWait, SiteTraits traits) {
        this.site = requireNonNull(site, "site is null");
        this.openWait = requireNonNull(openWait, "openWait is null");
        this.traits = requireNonNull(traits, "traits is null");
        this.controllers = new ControllerChannels(site, targets);
        this.renewAttemptMillis = Math.max(RENEW_ATTEMPT_MIN_MILLIS, RENEW_DEADLINE_MILLIS / targets.size());
    }

    /** Tells {@code listener} when the connection to the controller in use is lost, so that the leases are renewed at once through another. */
    @Override
    public void whenUnanswered(Runnable listener) {
        controllers.whenLost(listener);
    }

    /** How many times calls moved to another controller. */
    public long failovers() {
        return controllers.failovers();
    }

    /** Seconds from the first unanswered call of the controller left last to the first answer of the next; 0 before any failover. */
    public double lastFailoverSeconds() {
        return controllers.lastFailoverSeconds();
    }

    @Override
    public void register(String grpcAddress, String nbdAddress) {
        call(channel -> blocking(channel).registerSite(Site.newBuilder().setName(site).setGrpcAddress(grpcAddress).setNbdAddress(nbdAddress)
                .setVmMemoryBytes(traits.vmMemoryBytes()).setIntraSiteRttMicros(traits.intraSiteRtt().toNanos() / 1000).build()));
    }

    @Override
    public Replication replication(String image) {
        return call(channel -> replication(blocking(channel).getImage(GetImageRequest.newBuilder().setName(image).build()).getConfig()));
    }

    @Override
    public Map<String, UUID> images() {
        return call(channel -> {
            Map<String, UUID> images = new LinkedHashMap<>();
            for (ImageConfig image : blocking(channel).listImages(ListImagesRequest.getDefaultInstance()).getImagesList()) {
                images.put(image.getName(), UUID.fromString(image.getUuid()));
            }
            return images;
        });
    }

    @Override
    public CompletableFuture<List<CatalogImage>> catalog(Duration timeout) {
        // One deadline for the list and every image's status.
        ControllerServiceGrpc.ControllerServiceStub stub = asking(timeout);
        ResponseFuture<ListImagesResponse> listed = new ResponseFuture<>();
        stub.listImages(ListImagesRequest.getDefaultInstance(), listed);
        return answer(listed.thenCompose(response -> {
            List<CompletableFuture<Optional<CatalogImage>>> images = response.getImagesList().stream()
                    .filter(config -> config.getMode() != PropagationMode.UNRECOGNIZED)
                    .map(config -> unlessRemoved(answer(catalogImage(stub, config.getName()))))
                    .toList();
            return CompletableFuture.allOf(images.toArray(CompletableFuture[]::new))
                    .thenApply(all -> images.stream().flatMap(image -> image.join().stream()).toList());
        }));
    }

    /** Empty for an image removed since the list was read; any other failure fails the list. */
    private static CompletableFuture<Optional<CatalogImage>> unlessRemoved(CompletableFuture<CatalogImage> image) {
        return image.handle((found, failure) -> {
            if (failure == null) {
                return Optional.of(found);
            }
            Throwable cause = HeliotropeException.unwrap(failure);
            if (cause instanceof HeliotropeException e && e.code() == ErrorCode.IMAGE_NOT_FOUND) {
                return Optional.empty();
            }
            throw new CompletionException(cause);
        });
    }

    @Override
    public CompletableFuture<CatalogImage> image(String name, Duration timeout) {
        return answer(catalogImage(asking(timeout), name));
    }

    private CompletableFuture<CatalogImage> catalogImage(ControllerServiceGrpc.ControllerServiceStub stub, String name) {
        ResponseFuture<ImageStatus> status = new ResponseFuture<>();
        stub.getImage(GetImageRequest.newBuilder().setName(name).build(), status);
        return status.thenApply(image -> {
            ImageConfig config = image.getConfig();
            return new CatalogImage(config.getName(), UUID.fromString(config.getUuid()), config.getSizeBytes(), mode(config), config.getHome(), image.getLease().getHolder(),
                    image.getCurrentBlocksList().stream().collect(Collectors.toMap(SiteBlocks::getSite, SiteBlocks::getBlocks, Long::sum)));
        });
    }

    /** A stub for calls that must not block, all within {@code timeout} from now. */
    private ControllerServiceGrpc.ControllerServiceStub asking(Duration timeout) {
        return ControllerServiceGrpc.newStub(controllers.channel()).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** A call's answer, its failure as our error. */
    private <T> CompletableFuture<T> answer(CompletableFuture<T> call) {
        return call.handle((value, failure) -> {
            if (failure != null) {
                throw GrpcErrors.toException(failure, controllers.describe());
            }
            return value;
        });
    }

    @Override
    public List<SiteAddress> sites() {
        return call(channel -> blocking(channel).listSites(ListSitesRequest.getDefaultInstance()).getSitesList().stream()
                .map(site -> new SiteAddress(site.getName(), site.getGrpcAddress(), site.getNbdAddress()))
                .sorted(Comparator.comparing(SiteAddress::name))
                .toList());
    }

    @Override
    public void reportRtt(Map<String, Duration> rtts, Duration probePeriod) {
        ReportRttRequest.Builder request = ReportRttRequest.newBuilder().setSite(site).setProbePeriodMillis(probePeriod.toMillis());
        rtts.forEach((peer, rtt) -> request.addPeers(PeerRtt.newBuilder().setPeer(peer).setRttMicros(rtt.toNanos() / 1000)));
        call(channel -> blocking(channel).reportRtt(request.build()));
    }

    @Override
    public Opened open(String image, long cachedMetaSeq) {
        return call(channel -> opened(openStream(channel, image, OpenMode.OPEN_MODE_WRITE, cachedMetaSeq, openWait)));
    }

    @Override
    public Synced read(String image, long cachedMetaSeq) {
        return call(channel -> synced(openStream(channel, image, OpenMode.OPEN_MODE_READ, cachedMetaSeq, Duration.ZERO)));
    }

    @Override
    public CompletableFuture<Synced> awaitHandoff(String image, long cachedMetaSeq, Duration wait) {
        AwaitedHandoff awaited = new AwaitedHandoff();
        ControllerServiceGrpc.newStub(controllers.channel())
                .withDeadlineAfter(DEADLINE_SECONDS * 1000 + wait.toMillis(), TimeUnit.MILLISECONDS)
                .awaitHandoff(AwaitHandoffRequest.newBuilder().setImage(image).setSite(site).setCachedMetaSeq(cachedMetaSeq)
                        .setWaitMillis(wait.toMillis()).build(), awaited);
        return awaited;
    }

    private static Synced synced(Streamed streamed) {
        Lease lease = streamed.first().getLease();
        return new Synced(opened(streamed), leaseState(lease), lease.getExpiresEpochMillis() - System.currentTimeMillis());
    }

    private record Streamed(OpenImageResponse first, List<GlobalBlock> entries) {}

    /** An {@code AwaitHandoff} call's answer, gathered as its messages come; cancelling it cancels the call. */
    private final class AwaitedHandoff extends CompletableFuture<Synced> implements ClientResponseObserver<AwaitHandoffRequest, OpenImageResponse> {
        private final List<GlobalBlock> entries = new ArrayList<>();
        private OpenImageResponse first;
        private volatile ClientCallStreamObserver<AwaitHandoffRequest> call;

        @Override
        public void beforeStart(ClientCallStreamObserver<AwaitHandoffRequest> call) {
            this.call = call;
        }

        @Override
        public void onNext(OpenImageResponse message) {
            if (first == null) {
                first = message;
            }
            addEntries(message.getEntries(), entries);
        }

        @Override
        public void onError(Throwable failure) {
            completeExceptionally(GrpcErrors.toException(failure, controllers.describe()));
        }

        @Override
        public void onCompleted() {
            if (first == null) {
                completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, controllers.describe() + ": AwaitHandoff ended without an answer"));
                return;
            }
            try {
                complete(synced(new Streamed(first, entries)));
            } catch (RuntimeException e) {
                completeExceptionally(e);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                call.cancel("no longer awaited", null);
            }
            return cancelled;
        }
    }

    private Streamed openStream(ManagedChannel channel, String image, OpenMode mode, long cachedMetaSeq, Duration wait) {
        // The controller answers within the wait; the deadline leaves it the usual time on top.
        Iterator<OpenImageResponse> responses = ControllerServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(DEADLINE_SECONDS * 1000 + wait.toMillis(), TimeUnit.MILLISECONDS)
                .openImage(OpenImageRequest.newBuilder().setImage(image).setSite(site).setMode(mode)
                        .setCachedMetaSeq(cachedMetaSeq).setWaitMillis(wait.toMillis()).build());
        OpenImageResponse first = responses.next();
        List<GlobalBlock> entries = new ArrayList<>();
        addEntries(first.getEntries(), entries);
        while (responses.hasNext()) {
            addEntries(responses.next().getEntries(), entries);
        }
        return new Streamed(first, entries);
    }

    private static Opened opened(Streamed streamed) {
        OpenImageResponse first = streamed.first();
        return new Opened(UUID.fromString(first.getConfig().getUuid()), first.getLease().getEpoch(), Duration.ofMillis(first.getLease().getTtlMillis()),
                first.getConfig().getSizeBytes(), first.getMetaSeq(), first.getSnapshot(), streamed.entries(), replication(first.getConfig()),
                recovery(first.getLease().getRecovery()));
    }

    @Override
    public void renew(String image, long epoch) {
        call(channel -> renewing(channel).renewLease(leaseRequest(image, epoch)));
    }

    @Override
    public long advance(String image, long epoch) {
        return call(channel -> renewing(channel).advanceEpoch(leaseRequest(image, epoch)).getEpoch());
    }

    @Override
    public LeaseState lease(String image) {
        return leaseState(call(channel -> blocking(channel).getLease(GetImageRequest.newBuilder().setName(image).build())));
    }

    @Override
    public LeaseState lease(String image, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        return leaseState(call(channel -> ControllerServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                .getLease(GetImageRequest.newBuilder().setName(image).build())));
    }

    private static LeaseState leaseState(Lease lease) {
        return new LeaseState(lease.getHolder(), lease.getGrantEpoch(), lease.getEpoch());
    }

    @Override
    public long handOver(String image, long epoch, List<BlockVersion> blocks, String holder, String toSite, Duration timeout) {
        return flush(FlushHeader.newBuilder().setImage(image).setSite(site).setEpoch(epoch).setMoveTo(toSite).build(), entries(blocks, holder),
                timeout.toNanos());
    }

    @Override
    public long flush(String image, long epoch, List<BlockVersion> blocks, String holder, boolean release) {
        return flush(FlushHeader.newBuilder().setImage(image).setSite(site).setEpoch(epoch).setRelease(release).build(), entries(blocks, holder),
                TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS));
    }

    private static List<GlobalBlock> entries(List<BlockVersion> blocks, String holder) {
        return blocks.stream().map(block -> new GlobalBlock(block.block(), block.version(), block.state() == BlockState.ZERO ? null : holder)).toList();
    }

    @Override
    public void recordSyncSites(String image, long epoch, Set<String> sites) {
        call(channel -> blocking(channel).recordSyncSites(RecordSyncSitesRequest.newBuilder().setImage(image).setSite(site).setEpoch(epoch)
                .addAllSyncSites(new TreeSet<>(sites)).build()));
    }

    @Override
    public long recover(String image, long epoch, List<GlobalBlock> blocks) {
        return flush(FlushHeader.newBuilder().setImage(image).setSite(site).setEpoch(epoch).setRecovery(true).build(), blocks,
                TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS));
    }

    /**
     * Streams a flush of {@code blocks} (a null holder: a zero marker) to the controller in use,
     * then to the next ones while none answers, all within {@code timeoutNanos}; every attempt
     * carries the same flush id, so that one after an attempt that went through is only answered.
     */
    private long flush(FlushHeader header, List<GlobalBlock> blocks, long timeoutNanos) {
        FlushHeader identified = header.toBuilder().setFlushId(UUID.randomUUID().toString()).build();
        long deadline = System.nanoTime() + timeoutNanos;
        return call(channel -> flush(channel, identified, blocks, Math.max(1, deadline - System.nanoTime())));
    }

    private static long flush(ManagedChannel channel, FlushHeader header, List<GlobalBlock> blocks, long timeoutNanos) {
        ResponseFuture<FlushResponse> response = new ResponseFuture<>();
        StreamObserver<FlushRequest> requests = ControllerServiceGrpc.newStub(channel)
                .withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS)
                .flush(response);
        requests.onNext(FlushRequest.newBuilder().setHeader(header).build());
        for (int from = 0; from < blocks.size(); from += BATCH) {
            BlockMetadata.Builder batch = BlockMetadata.newBuilder();
            Map<String, Integer> holders = new HashMap<>();
            for (GlobalBlock block : blocks.subList(from, Math.min(blocks.size(), from + BATCH))) {
                int holder = block.zero() ? 0 : holders.computeIfAbsent(block.holder(), name -> {
                    batch.addSites(name);
                    return batch.getSitesCount();
                });
                batch.addBlocks(block.block()).addVersions(block.version()).addHolders(holder);
            }
            requests.onNext(FlushRequest.newBuilder().setEntries(batch).build());
        }
        requests.onCompleted();
        return response.join().getMetaSeq();
    }

    @Override
    public void close() {
        controllers.close();
    }

    /** The image's replication settings, with the transition table's rows as maps of the destinations above 0. */
    private static Replication replication(ImageConfig config) {
        Map<String, Map<String, Double>> transitions = new LinkedHashMap<>();
        TransitionTable table = config.getTransitions();
        int n = table.getSitesCount();
        for (int from = 0; from < n; from++) {
            for (int to = 0; to < n; to++) {
                double p = table.getProbabilities(from * n + to);
                if (p > 0) {
                    transitions.computeIfAbsent(table.getSites(from), row -> new LinkedHashMap<>()).put(table.getSites(to), p);
                }
            }
        }
        return new Replication(mode(config), config.getKFactor(), config.getSRatio(), config.getHome(), config.getSyncCopies(), config.getSyncMin(),
                config.getBandwidthBytesPerSecond(), config.getBudgetBytesPerDay(), transitions, config.getPulls());
    }

    private static Replication.Mode mode(ImageConfig config) {
        return switch (config.getMode()) {
            case PROPAGATION_MODE_ON_DEMAND -> Replication.Mode.ON_DEMAND;
            case PROPAGATION_MODE_SYNC -> Replication.Mode.SYNC;
            case PROPAGATION_MODE_REMOTE -> Replication.Mode.REMOTE;
            case PROPAGATION_MODE_PROACTIVE, PROPAGATION_MODE_UNSPECIFIED -> Replication.Mode.PROACTIVE;
            // A mode this build does not know must not be served with weaker guarantees than it promises.
            case UNRECOGNIZED -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + config.getName()
                    + "' has a replication mode this site does not know (" + config.getModeValue() + "): upgrade the site");
        };
    }

    private static Recovery recovery(SyncRecovery recovery) {
        return new Recovery(recovery.getDeadHoldersList(), recovery.getFirstEpoch(), recovery.getLastEpoch(),
                recovery.getSyncSitesList().stream().map(set -> Set.copyOf(set.getSitesList())).toList());
    }

    private static void addEntries(BlockMetadata metadata, List<GlobalBlock> entries) {
        for (int i = 0; i < metadata.getBlocksCount(); i++) {
            int holder = metadata.getHolders(i);
            entries.add(new GlobalBlock(metadata.getBlocks(i), metadata.getVersions(i), holder == 0 ? null : metadata.getSites(holder - 1)));
        }
    }

    private static ControllerServiceGrpc.ControllerServiceBlockingStub blocking(ManagedChannel channel) {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    /** For the calls that renew the lease: each controller tried gets its share of the renewal's time. */
    private ControllerServiceGrpc.ControllerServiceBlockingStub renewing(ManagedChannel channel) {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(renewAttemptMillis, TimeUnit.MILLISECONDS);
    }

    private LeaseRequest leaseRequest(String image, long epoch) {
        return LeaseRequest.newBuilder().setImage(image).setSite(site).setEpoch(epoch).build();
    }

    private <T> T call(Function<ManagedChannel, T> rpc) {
        return controllers.call(rpc);
    }
}
