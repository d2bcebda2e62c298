package io.heliotrope.storage.peer.grpc;

import io.grpc.BindableService;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.storage.v1.FetchRequest;
import io.heliotrope.proto.storage.v1.FetchResponse;
import io.heliotrope.proto.storage.v1.PeerServiceGrpc;
import io.heliotrope.proto.storage.v1.PingRequest;
import io.heliotrope.proto.storage.v1.PingResponse;
import io.heliotrope.proto.storage.v1.PushRequest;
import io.heliotrope.proto.storage.v1.PushResponse;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerService;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.peer.SiteDirectory;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * {@code heliotrope.storage.v1.PeerService}: protos in, {@link PeerService} calls, protos
 * out, one batch at a time per stream ({@link ServerBatches}); the bytes of every call are
 * counted on the link to the calling site.
 */
public final class PeerGrpcService implements PeerServiceGrpc.AsyncService, BindableService {
    /**
     * The HTTP/2 flow-control window of peer streams, on both sides: one stream gets at most
     * window / RTT, and a 75 ms, 1 Gbit/s path holds 9.4 MB in flight.
     */
    public static final int FLOW_CONTROL_WINDOW = 16 << 20;

    private final PeerService service;
    private final ServerTraffic traffic;

    public PeerGrpcService(PeerService service, SiteDirectory directory, PeerMetrics metrics) {
        this.service = requireNonNull(service, "service is null");
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
            return service.fetch(PeerProtos.image(request.getImage()), wanted)
                    .thenApply(copies -> PeerProtos.fetchResponse(wanted, copies));
        });
    }

    @Override
    public StreamObserver<PushRequest> push(StreamObserver<PushResponse> observer) {
        return new ServerBatches<>(observer, request -> service.push(PeerProtos.image(request.getImage()), PeerProtos.copies(request))
                .thenApply(PeerProtos::pushResponse));
    }

    @Override
    public void ping(PingRequest request, StreamObserver<PingResponse> observer) {
        observer.onNext(PingResponse.getDefaultInstance());
        observer.onCompleted();
    }
}
