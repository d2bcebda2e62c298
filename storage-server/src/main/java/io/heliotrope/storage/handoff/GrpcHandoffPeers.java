package io.heliotrope.storage.handoff;

import io.heliotrope.error.GrpcErrors;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.proto.storage.v1.ActivateRequest;
import io.heliotrope.proto.storage.v1.ActivateResponse;
import io.heliotrope.proto.storage.v1.BoostRequest;
import io.heliotrope.proto.storage.v1.BoostResponse;
import io.heliotrope.proto.storage.v1.HandoffServiceGrpc;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.peer.grpc.GrpcPeers;
import io.grpc.stub.StreamObserver;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/** Other sites' handoff services, over the peer connections. */
public final class GrpcHandoffPeers implements SiteHandoffs.Peers {
    /** Versions per Boost message: 16 bytes each, 1 MiB a message. */
    private static final int BATCH = 65_536;

    private final String site;
    private final GrpcPeers peers;
    private final Duration timeout;

    /** @param timeout how long a call to another site may take */
    public GrpcHandoffPeers(String site, GrpcPeers peers, Duration timeout) {
        this.site = requireNonNull(site, "site is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.timeout = requireNonNull(timeout, "timeout is null");
    }

    @Override
    public CompletableFuture<Long> boost(String to, String image, List<BlockVersion> held) {
        ResponseFuture<BoostResponse> response = new ResponseFuture<>();
        try {
            StreamObserver<BoostRequest> requests = stub(to).boost(response);
            BoostRequest.Builder first = BoostRequest.newBuilder().setImage(image).setToSite(site);
            for (int from = 0; from == 0 || from < held.size(); from += BATCH) {
                BoostRequest.Builder batch = from == 0 ? first : BoostRequest.newBuilder();
                for (BlockVersion block : held.subList(from, Math.min(held.size(), from + BATCH))) {
                    batch.addBlocks(block.block()).addVersions(block.version());
                }
                requests.onNext(batch.build());
            }
            requests.onCompleted();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return answer(to, response).thenApply(BoostResponse::getQueuedBlocks);
    }

    @Override
    public CompletableFuture<Void> activate(String to, String image, long epoch, long metaSeq) {
        ResponseFuture<ActivateResponse> response = new ResponseFuture<>();
        try {
            stub(to).activate(ActivateRequest.newBuilder().setImage(image).setEpoch(epoch).setMetaSeq(metaSeq).build(), response);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return answer(to, response).thenApply(ignored -> null);
    }

    private HandoffServiceGrpc.HandoffServiceStub stub(String to) {
        return HandoffServiceGrpc.newStub(peers.channel(to)).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static <T> CompletableFuture<T> answer(String to, CompletableFuture<T> call) {
        return call.handle((value, failure) -> {
            if (failure != null) {
                throw GrpcErrors.toException(failure, "site " + to);
            }
            return value;
        });
    }
}
