package io.heliotrope.storage.peer.grpc;

import io.grpc.BindableService;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.storage.v1.CollectRequest;
import io.heliotrope.proto.storage.v1.CollectResponse;
import io.heliotrope.proto.storage.v1.FenceRequest;
import io.heliotrope.proto.storage.v1.FenceResponse;
import io.heliotrope.proto.storage.v1.FetchRequest;
import io.heliotrope.proto.storage.v1.FetchResponse;
import io.heliotrope.proto.storage.v1.HeatRequest;
import io.heliotrope.proto.storage.v1.HeatResponse;
import io.heliotrope.proto.storage.v1.PeerServiceGrpc;
import io.heliotrope.proto.storage.v1.PingRequest;
import io.heliotrope.proto.storage.v1.PingResponse;
import io.heliotrope.proto.storage.v1.PushRequest;
import io.heliotrope.proto.storage.v1.PushResponse;
import io.heliotrope.storage.heat.HeatService;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerService;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.peer.SiteDirectory;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * {@code heliotrope.storage.v1.PeerService}: protos in, {@link PeerService} calls, protos
 * out, one batch at a time per stream ({@link ServerBatches}); the bytes of every call are
 * counted on the link to the calling site. A fetch marked {@code background} goes to the
 * peer service's pool of background fetches; heat is asked of the {@link HeatService}.
 */
public final class PeerGrpcService implements PeerServiceGrpc.AsyncService, BindableService {
    /**
     * The HTTP/2 flow-control window of peer streams, on both sides: one stream gets at most
     * window / RTT, and a 75 ms, 1 Gbit/s path holds 9.4 MB in flight.
     */
    public static final int FLOW_CONTROL_WINDOW = 16 << 20;

    /** Collected blocks per response: 17 bytes each at most, so 64 KiB and more a message. */
    private static final int COLLECT_BATCH = 4096;
    /** Blocks of heat per response: 10 bytes each at most, so 160 KiB a message at most. */
    static final int HEAT_BATCH = 16384;

    private final PeerService service;
    private final HeatService heats;
    private final ServerTraffic traffic;

    public PeerGrpcService(PeerService service, HeatService heats, SiteDirectory directory, PeerMetrics metrics) {
        this.service = requireNonNull(service, "service is null");
        this.heats = requireNonNull(heats, "heats is null");
        this.traffic = new ServerTraffic(requireNonNull(directory, "directory is null"), requireNonNull(metrics, "metrics is null"));
    }

    @Override
    public ServerServiceDefinition bindService() {
        return ServerInterceptors.intercept(PeerServiceGrpc.bindService(this), traffic);
    }

    @Override
    public StreamObserver<FetchRequest> fetch(StreamObserver<FetchResponse> observer) {
        return new ServerBatches<>(observer, request -> {
            List<Wanted> wanted = PeerProtos.wanted(request);
            ImageRef image = PeerProtos.image(request.getImage());
            return (request.getBackground() ? service.fetchInBackground(image, wanted) : service.fetch(image, wanted))
                    .thenApply(copies -> PeerProtos.fetchResponse(wanted, copies));
        });
    }

    @Override
    public StreamObserver<PushRequest> push(StreamObserver<PushResponse> observer) {
        return new ServerBatches<>(observer, request -> service.push(PeerProtos.image(request.getImage()), PeerProtos.copies(request))
                .thenApply(PeerProtos::pushResponse));
    }

    @Override
    public void fence(FenceRequest request, StreamObserver<FenceResponse> observer) {
        answer(() -> service.fence(PeerProtos.image(request.getImage()), request.getBelowEpoch()), observer,
                fence -> List.of(FenceResponse.newBuilder().setBelowEpoch(fence).build()));
    }

    @Override
    public void collect(CollectRequest request, StreamObserver<CollectResponse> observer) {
        answer(() -> service.collect(PeerProtos.image(request.getImage()), request.getFirstEpoch(), request.getLastEpoch()), observer,
                blocks -> PeerProtos.collectResponses(blocks, COLLECT_BATCH));
    }

    @Override
    public void heat(HeatRequest request, StreamObserver<HeatResponse> observer) {
        answer(() -> CompletableFuture.completedFuture(heats.heat(PeerProtos.image(request.getImage()), request.getAskingSite(),
                request.getHolderEpoch(), Integer.toUnsignedLong(request.getMaxBlocks()))), observer,
                heat -> PeerProtos.heatResponses(heat, HEAT_BATCH));
    }

    /** Sends the responses a call's result makes, or its failure. */
    private static <T, R> void answer(Supplier<CompletableFuture<T>> call, StreamObserver<R> observer, Function<T, List<R>> responses) {
        CompletableFuture<T> result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        result.whenComplete((value, failure) -> {
            if (failure != null) {
                observer.onError(GrpcErrors.toStatus(failure));
                return;
            }
            responses.apply(value).forEach(observer::onNext);
            observer.onCompleted();
        });
    }

    @Override
    public void ping(PingRequest request, StreamObserver<PingResponse> observer) {
        observer.onNext(PingResponse.getDefaultInstance());
        observer.onCompleted();
    }
}
