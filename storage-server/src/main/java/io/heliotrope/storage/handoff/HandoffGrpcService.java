package io.heliotrope.storage.handoff;

import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.storage.v1.ActivateRequest;
import io.heliotrope.proto.storage.v1.ActivateResponse;
import io.heliotrope.proto.storage.v1.BoostRequest;
import io.heliotrope.proto.storage.v1.BoostResponse;
import io.heliotrope.proto.storage.v1.HandoffRole;
import io.heliotrope.proto.storage.v1.HandoffServiceGrpc;
import io.heliotrope.proto.storage.v1.HandoffStatus;
import io.heliotrope.proto.storage.v1.HandoverRequest;
import io.heliotrope.proto.storage.v1.HandoverResponse;
import io.heliotrope.proto.storage.v1.ImageHandoffRequest;
import io.heliotrope.proto.storage.v1.StandbyRequest;
import io.heliotrope.proto.storage.v1.StandbyResponse;

import java.time.Duration;
import java.util.stream.LongStream;

import static io.heliotrope.grpc.GrpcReplies.reply;
import static java.util.Objects.requireNonNull;

/** {@code heliotrope.storage.v1.HandoffService}: protos in, {@link SiteHandoffs} calls, protos out. */
public final class HandoffGrpcService extends HandoffServiceGrpc.HandoffServiceImplBase {
    private final SiteHandoffs handoffs;

    public HandoffGrpcService(SiteHandoffs handoffs) {
        this.handoffs = requireNonNull(handoffs, "handoffs is null");
    }

    @Override
    public void standby(StandbyRequest request, StreamObserver<StandbyResponse> observer) {
        reply(handoffs.standby(request.getImage(), request.getFromSite()), status -> StandbyResponse.newBuilder().setStatus(toProto(status)).build(), observer);
    }

    @Override
    public StreamObserver<BoostRequest> boost(StreamObserver<BoostResponse> observer) {
        return new StreamObserver<>() {
            private final LongStream.Builder blocks = LongStream.builder();
            private final LongStream.Builder versions = LongStream.builder();
            private String image;
            private String to;

            @Override
            public void onNext(BoostRequest request) {
                if (image == null) {
                    image = request.getImage();
                    to = request.getToSite();
                }
                request.getBlocksList().forEach(blocks::add);
                request.getVersionsList().forEach(versions::add);
            }

            @Override
            public void onError(Throwable failure) {}

            @Override
            public void onCompleted() {
                reply(handoffs.boost(image, to, blocks.build().toArray(), versions.build().toArray()),
                        queued -> BoostResponse.newBuilder().setQueuedBlocks(queued).build(), observer);
            }
        };
    }

    @Override
    public void handover(HandoverRequest request, StreamObserver<HandoverResponse> observer) {
        reply(handoffs.handOver(request.getImage(), request.getToSite(), Duration.ofMillis(request.getDeadlineMillis())),
                handover -> HandoverResponse.newBuilder().setEpoch(handover.epoch()).setMetaSeq(handover.metaSeq())
                        .setBacklogBlocks(handover.backlogBlocks()).build(), observer);
    }

    @Override
    public void activate(ActivateRequest request, StreamObserver<ActivateResponse> observer) {
        reply(handoffs.activate(request.getImage()), status -> ActivateResponse.newBuilder().setStatus(toProto(status)).build(), observer);
    }

    @Override
    public void reclaim(ImageHandoffRequest request, StreamObserver<HandoffStatus> observer) {
        reply(handoffs.reclaim(request.getImage()), HandoffGrpcService::toProto, observer);
    }

    @Override
    public void endHold(ImageHandoffRequest request, StreamObserver<HandoffStatus> observer) {
        reply(handoffs.endHold(request.getImage()), HandoffGrpcService::toProto, observer);
    }

    @Override
    public void abandon(ImageHandoffRequest request, StreamObserver<HandoffStatus> observer) {
        reply(handoffs.abandon(request.getImage()), HandoffGrpcService::toProto, observer);
    }

    @Override
    public void getHandoff(ImageHandoffRequest request, StreamObserver<HandoffStatus> observer) {
        reply(handoffs.handoff(request.getImage()), HandoffGrpcService::toProto, observer);
    }

    static HandoffStatus toProto(SiteHandoffs.Status status) {
        HandoffRole role = status.role() == null ? HandoffRole.HANDOFF_ROLE_NONE : switch (status.role()) {
            case STANDBY -> HandoffRole.HANDOFF_ROLE_STANDBY;
            case ACTIVE -> status.backlogBlocks() > 0 || status.pushedBytes() > 0 ? HandoffRole.HANDOFF_ROLE_BOOSTING : HandoffRole.HANDOFF_ROLE_ACTIVE;
            case HELD -> HandoffRole.HANDOFF_ROLE_HELD;
            case ENDED -> HandoffRole.HANDOFF_ROLE_NONE;
        };
        return HandoffStatus.newBuilder().setImage(status.image()).setRole(role).setPeer(status.peer()).setEpoch(status.epoch())
                .setBacklogBlocks(status.backlogBlocks()).setPushedBytes(status.pushedBytes()).setConnections(status.connections()).build();
    }
}
