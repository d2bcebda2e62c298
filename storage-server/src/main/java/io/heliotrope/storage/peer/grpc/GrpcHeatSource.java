package io.heliotrope.storage.peer.grpc;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.grpc.ResponsesFuture;
import io.heliotrope.proto.storage.v1.HeatRequest;
import io.heliotrope.proto.storage.v1.HeatResponse;
import io.heliotrope.proto.storage.v1.PeerServiceGrpc;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.heat.Heat;
import io.heliotrope.storage.heat.HeatSource;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerMetrics.Call;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.SiteDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * {@link HeatSource} over gRPC: asks every other site of the directory at once, on the
 * connections of {@link GrpcPeers}, each within the timeout. A site that fails or does not
 * answer in time counts as a failed {@code heat} call in {@link PeerMetrics} and is left out.
 */
public final class GrpcHeatSource implements HeatSource {
    /** Long enough for a WAN round trip and 8 MB of heat; the pull starts its other orders after 500 ms anyway. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(GrpcHeatSource.class);

    private final String site;
    private final SiteDirectory directory;
    private final GrpcPeers peers;
    private final PeerMetrics metrics;
    private final Duration timeout;

    /** Asks as {@code site} the other sites of {@code directory}, through {@code peers}. */
    public GrpcHeatSource(String site, SiteDirectory directory, GrpcPeers peers, PeerMetrics metrics, Duration timeout) {
        this.site = requireNonNull(site, "site is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.timeout = requireNonNull(timeout, "timeout is null");
    }

    @Override
    public CompletableFuture<List<Heat>> heat(ImageInfo image, long holderEpoch, int maxBlocks) {
        HeatRequest request = PeerProtos.heatRequest(ImageRef.of(image), site, holderEpoch, maxBlocks);
        List<CompletableFuture<Heat>> answers = directory.others().stream().map(other -> ask(other, image.name(), request, maxBlocks)).toList();
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(all -> answers.stream()
                .map(CompletableFuture::join)
                .filter(heat -> heat.epoch() > 0 && heat.epoch() < holderEpoch && heat.blocks().length > 0)
                .sorted(Comparator.comparingLong(Heat::epoch).reversed().thenComparing(Heat::site))
                .toList());
    }

    /** {@code other}'s answer; a heat of epoch 0 when it failed. */
    private CompletableFuture<Heat> ask(String other, String image, HeatRequest request, int maxBlocks) {
        ResponsesFuture<HeatResponse> responses = new ResponsesFuture<>();
        try {
            PeerServiceGrpc.newStub(peers.channel(other)).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS).heat(request, responses);
        } catch (RuntimeException e) {
            responses.completeExceptionally(e);
        }
        return responses.thenApply(received -> PeerProtos.heat(other, received, maxBlocks)).exceptionally(failure -> {
            metrics.failed(other, Call.HEAT);
            log.info("{}: no heat from {}: {}", image, other, HeliotropeException.rootMessage(failure));
            return new Heat(other, 0, new long[0]);
        });
    }
}
