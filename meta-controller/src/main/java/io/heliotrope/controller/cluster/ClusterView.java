package io.heliotrope.controller.cluster;

import io.grpc.Channel;
import io.grpc.Status;
import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.metrics.ControllerMetrics;
import io.heliotrope.controller.rtt.RttRow;
import io.heliotrope.controller.server.ControllerProtos;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ImageStatus;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageLocality;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.controller.v1.ZooKeeperHealth;
import io.heliotrope.proto.storage.v1.GetSiteStatusRequest;
import io.heliotrope.proto.storage.v1.ImageServiceGrpc;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The whole cluster as this controller sees it: what {@code GetClusterStatus}, the status
 * page and {@code helio status} show. In the background it asks every registered site for
 * its {@code GetSiteStatus} once a poll interval, each call with a short deadline, and keeps
 * per site whether it answered, when it last did, why the last call failed, and its last
 * status, kept while it is down. A site that does not implement the call answered all the
 * same: it is up, without a status. In the same round it asks each site's VM runner what it
 * runs ({@link SiteRunners}). Each round also counts the live write leases for the
 * metrics. A site going down or coming back is logged once, not at every round. While this
 * controller has no connection to ZooKeeper, rounds ask the sites last read from the registry,
 * and the status holds them and ZooKeeper's health only (no catalog, no RTT matrix, which are
 * in ZooKeeper): it answers at once, saying which part is down.
 */
public final class ClusterView implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClusterView.class);
    /** How long a round waits for the site registry and the lease count, which ZooKeeper may hold up for its session timeout. */
    private static final Duration REGISTRY_WAIT = Duration.ofSeconds(20);
    /** Past the calls' deadline, how long a round waits for their callbacks. */
    private static final Duration CALL_SLACK = Duration.ofSeconds(1);
    private static final Duration SHUTDOWN_PATIENCE = Duration.ofSeconds(5);

    private final ControllerService service;
    private final ControllerMetrics metrics;
    private final ClusterViewConfig config;
    private final Clock clock;
    private final SiteChannels channels = new SiteChannels();
    private final SiteRunners runners = new SiteRunners();
    private final Map<String, SiteState> sites = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor poller;
    private volatile int registered;
    /** The registry as last read; null before the first read. */
    private volatile List<Site> known;
    /** Whether the last round failed to read the registry; the poller's thread only. */
    private boolean registryFailing;

    public ClusterView(ControllerService service, ControllerMetrics metrics, ClusterViewConfig config, Clock clock) {
        this.service = requireNonNull(service, "service is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
        metrics.bindSites(() -> registered, this::sitesUp);
        poller = BoundedExecutors.scheduled("controller-cluster", 1, 1);
        poller.scheduleAtFixedRate(this::poll, 0, config.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Every registered site with its health and last status, the RTT matrix, and each image of
     * the catalog (only {@code imageOrEmpty} unless empty: {@code IMAGE_NOT_FOUND} when the
     * catalog has none of that name) merged with what each up site reports of it.
     */
    public ClusterStatus status(String imageOrEmpty) {
        return join(statusAsync(imageOrEmpty));
    }

    /** {@link #status}, without waiting. */
    public CompletableFuture<ClusterStatus> statusAsync(String imageOrEmpty) {
        ZooKeeperHealth zookeeper = zooKeeper();
        List<Site> lastRead = known;
        if (!zookeeper.getConnected() && lastRead != null) {
            return CompletableFuture.completedFuture(merge(lastRead, List.of(), List.of()).toBuilder().setZookeeper(zookeeper).build());
        }
        CompletableFuture<List<Site>> registry = service.listSites();
        CompletableFuture<List<RttRow>> rtt = service.rttMatrix();
        CompletableFuture<List<ImageStatus>> images = service.imageStatuses(requireNonNull(imageOrEmpty, "imageOrEmpty is null"));
        return CompletableFuture.allOf(registry, rtt, images)
                // ZooKeeper's health as of the answer: the reads may have waited for it to come back.
                .thenApply(ignored -> merge(registry.join(), rtt.join(), images.join()).toBuilder().setZookeeper(zooKeeper()).build());
    }

    private ZooKeeperHealth zooKeeper() {
        ZooKeeperStore.Health health = service.zooKeeper();
        return ZooKeeperHealth.newBuilder().setConnect(health.connectString()).setConnected(health.connected())
                .setSinceEpochMillis(health.sinceEpochMillis()).build();
    }

    /** Which site holds the current version of most blocks of each region; {@code regions} 0 for the default (see {@code Locality}). */
    public ImageLocality locality(String image, int regions) {
        return join(localityAsync(image, regions));
    }

    /** {@link #locality}, without waiting. */
    public CompletableFuture<ImageLocality> localityAsync(String image, int regions) {
        return service.locality(image, regions).thenApply(locality -> ControllerProtos.toProto(image, locality));
    }

    private ClusterStatus merge(List<Site> registry, List<RttRow> rtt, List<ImageStatus> images) {
        ClusterStatus.Builder cluster = ClusterStatus.newBuilder()
                .setGeneratedEpochMillis(clock.millis())
                .setRtt(ControllerProtos.toProto(rtt));
        Map<String, SiteStatus> answers = new LinkedHashMap<>();
        for (Site site : registry) {
            SiteState state = sites.getOrDefault(site.name(), SiteState.NOT_ASKED);
            cluster.addSites(state.toProto(ControllerProtos.toProto(site)));
            if (state.up() && state.status() != null) {
                answers.put(site.name(), state.status());
            }
        }
        for (ImageStatus image : images) {
            ClusterImage.Builder merged = cluster.addImagesBuilder().setStatus(ControllerProtos.toProto(image));
            answers.forEach((site, status) -> copyOf(status, image.image().config())
                    .ifPresent(copy -> merged.addSites(SiteImageState.newBuilder().setSite(site).setImage(copy))));
        }
        return cluster.build();
    }

    /** A site's copy of an image: the one of its identity, or, from a site that gives none, the one of its name. */
    private static Optional<SiteImageStatus> copyOf(SiteStatus status, ImageConfig image) {
        String uuid = image.uuid().toString();
        return status.getImagesList().stream()
                .filter(copy -> copy.getUuid().isEmpty() ? copy.getName().equals(image.name()) : copy.getUuid().equals(uuid))
                .findFirst();
    }

    private int sitesUp() {
        return (int) sites.values().stream().filter(SiteState::up).count();
    }

    /** One round: the registry, a call to each site, the lease count; it ends once every call has. */
    private void poll() {
        try {
            boolean connected = service.zooKeeper().connected();
            List<Site> lastRead = known;
            CompletableFuture<Integer> leases = connected ? service.leasesHeld() : null;
            List<Site> registry = connected || lastRead == null ? await(service.listSites(), REGISTRY_WAIT) : lastRead;
            known = registry;
            registered = registry.size();
            Set<String> names = registry.stream().map(Site::name).collect(Collectors.toSet());
            sites.keySet().retainAll(names);
            runners.retain(names);
            channels.retain(registry.stream().map(Site::grpcAddress).collect(Collectors.toSet()));
            CompletableFuture<?>[] calls = registry.stream().map(this::ask).toArray(CompletableFuture[]::new);
            if (leases != null) {
                metrics.leasesHeld(await(leases, REGISTRY_WAIT));
            }
            if (registryFailing) {
                registryFailing = false;
                log.info("cluster view: the site registry answers again");
            }
            awaitCalls(calls);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | ExecutionException | TimeoutException e) {
            if (!registryFailing) {
                registryFailing = true;
                log.warn("cluster view: cannot read the site registry, sites keep their last state: {}", HeliotropeException.rootMessage(e));
            }
        }
    }

    /** Waits for the calls of a round, each of which records its outcome, so that rounds never overlap. */
    private void awaitCalls(CompletableFuture<?>[] calls) throws InterruptedException, ExecutionException {
        try {
            await(CompletableFuture.allOf(calls), config.callTimeout().plus(CALL_SLACK));
        } catch (TimeoutException e) {
            log.debug("cluster view: calls still running {} after their deadline", CALL_SLACK);
        }
    }

    /** What each site's VM runner said at the last round. */
    SiteRunners runners() {
        return runners;
    }

    private CompletableFuture<Void> ask(Site site) {
        if (site.grpcAddress().isEmpty()) {
            failed(site, "no gRPC address registered");
            runners.unreachable(site.name());
            return CompletableFuture.completedFuture(null);
        }
        Channel channel = channels.channel(site.grpcAddress());
        return CompletableFuture.allOf(askStatus(site, channel), runners.ask(site.name(), channel, config.callTimeout()));
    }

    private CompletableFuture<Void> askStatus(Site site, Channel channel) {
        ResponseFuture<SiteStatus> response = new ResponseFuture<>();
        ImageServiceGrpc.newStub(channel)
                .withDeadlineAfter(config.callTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .getSiteStatus(GetSiteStatusRequest.getDefaultInstance(), response);
        return response.handle((status, failure) -> {
            if (failure == null) {
                answered(site, status, "");
            } else if (Status.fromThrowable(failure).getCode() == Status.Code.UNIMPLEMENTED) {
                answered(site, null, "the site does not report its status (GetSiteStatus is not implemented there)");
            } else {
                failed(site, describe(failure, site.grpcAddress()));
            }
            return null;
        });
    }

    private synchronized void answered(Site site, SiteStatus status, String note) {
        SiteState before = sites.get(site.name());
        sites.put(site.name(), (before == null ? SiteState.NOT_ASKED : before).answered(clock.millis(), status, note));
        if (before == null || !before.up()) {
            log.info("{}: {} at {}", site.name(), before == null ? "answering" : "answering again", site.grpcAddress());
        }
    }

    private synchronized void failed(Site site, String error) {
        SiteState before = sites.get(site.name());
        sites.put(site.name(), (before == null ? SiteState.NOT_ASKED : before).failed(error));
        if (before == null || before.up()) {
            log.warn("{}: down: {}", site.name(), error);
        }
    }

    private static String describe(Throwable failure, String address) {
        String message = GrpcErrors.toException(failure, address).getMessage();
        String root = HeliotropeException.rootMessage(failure);
        return message.contains(root) ? message : message + ": " + root;
    }

    private static <T> T await(CompletableFuture<T> future, Duration wait) throws InterruptedException, ExecutionException, TimeoutException {
        return future.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The value of a call; its failure rethrown as the exception the service raised. */
    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (HeliotropeException.unwrap(e) instanceof RuntimeException failure) {
                throw failure;
            }
            throw e;
        }
    }

    /** Stops polling (a round under way ends first) and closes the channels to the sites. */
    @Override
    public void close() {
        try {
            BoundedExecutors.shutdown(poller, SHUTDOWN_PATIENCE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            channels.close();
        }
    }
}
