package io.heliotrope.controller.server;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.controller.cluster.ClusterView;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.proto.controller.v1.AwaitHandoffRequest;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageResponse;
import io.heliotrope.proto.controller.v1.FlushRequest;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.GetClusterStatusRequest;
import io.heliotrope.proto.controller.v1.GetImageLocalityRequest;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.GetRttMatrixRequest;
import io.heliotrope.proto.controller.v1.HandoffRequest;
import io.heliotrope.proto.controller.v1.ImageLocality;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.LeaseRequest;
import io.heliotrope.proto.controller.v1.ListImagesRequest;
import io.heliotrope.proto.controller.v1.ListImagesResponse;
import io.heliotrope.proto.controller.v1.ListSitesRequest;
import io.heliotrope.proto.controller.v1.ListSitesResponse;
import io.heliotrope.proto.controller.v1.OpenImageRequest;
import io.heliotrope.proto.controller.v1.OpenImageResponse;
import io.heliotrope.proto.controller.v1.PrepareRequest;
import io.heliotrope.proto.controller.v1.RecordSyncSitesRequest;
import io.heliotrope.proto.controller.v1.ReportRttRequest;
import io.heliotrope.proto.controller.v1.ReportRttResponse;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.SetImageRequest;
import io.heliotrope.proto.controller.v1.Site;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static io.heliotrope.grpc.GrpcReplies.call;
import static io.heliotrope.grpc.GrpcReplies.reply;
import static java.util.Objects.requireNonNull;

/** {@code heliotrope.controller.v1.ControllerService}: protos in, {@link ControllerService} calls, protos out. */
public final class ControllerGrpcService extends ControllerServiceGrpc.ControllerServiceImplBase {
    private final ControllerService service;
    private final ClusterView cluster;

    public ControllerGrpcService(ControllerService service, ClusterView cluster) {
        this.service = requireNonNull(service, "service is null");
        this.cluster = requireNonNull(cluster, "cluster is null");
    }

    @Override
    public void registerSite(Site request, StreamObserver<Site> observer) {
        reply(() -> service.registerSite(ControllerProtos.site(request)), ControllerProtos::toProto, observer);
    }

    @Override
    public void listSites(ListSitesRequest request, StreamObserver<ListSitesResponse> observer) {
        reply(service::listSites, sites -> ListSitesResponse.newBuilder()
                .addAllSites(sites.stream().map(ControllerProtos::toProto).toList())
                .build(), observer);
    }

    @Override
    public void createImage(CreateImageRequest request, StreamObserver<ImageStatus> observer) {
        reply(() -> service.createImage(ControllerProtos.spec(request)), ControllerProtos::toProto, observer);
    }

    @Override
    public void listImages(ListImagesRequest request, StreamObserver<ListImagesResponse> observer) {
        reply(service::listImages, images -> ListImagesResponse.newBuilder()
                .addAllImages(images.stream().map(ControllerProtos::toProto).toList())
                .build(), observer);
    }

    @Override
    public void getImage(GetImageRequest request, StreamObserver<ImageStatus> observer) {
        reply(() -> service.getImage(request.getName()), ControllerProtos::toProto, observer);
    }

    @Override
    public void deleteImage(DeleteImageRequest request, StreamObserver<DeleteImageResponse> observer) {
        reply(() -> service.deleteImage(request.getName()), ignored -> DeleteImageResponse.getDefaultInstance(), observer);
    }

    @Override
    public void compactImage(GetImageRequest request, StreamObserver<ImageStatus> observer) {
        reply(() -> service.compactImage(request.getName()), ControllerProtos::toProto, observer);
    }

    @Override
    public void openImage(OpenImageRequest request, StreamObserver<OpenImageResponse> observer) {
        OpenImageStream stream = new OpenImageStream((ServerCallStreamObserver<OpenImageResponse>) observer);
        stream.start(call(() -> service.openImage(request.getImage(), request.getSite(),
                ControllerProtos.openMode(request.getMode()), request.getCachedMetaSeq(), Duration.ofMillis(request.getWaitMillis()))));
    }

    @Override
    public void awaitHandoff(AwaitHandoffRequest request, StreamObserver<OpenImageResponse> observer) {
        OpenImageStream stream = new OpenImageStream((ServerCallStreamObserver<OpenImageResponse>) observer);
        stream.start(call(() -> service.awaitHandoff(request.getImage(), request.getSite(), request.getCachedMetaSeq(),
                Duration.ofMillis(request.getWaitMillis()))));
    }

    @Override
    public void renewLease(LeaseRequest request, StreamObserver<Lease> observer) {
        replyLease(request, service::renewLease, observer);
    }

    @Override
    public void advanceEpoch(LeaseRequest request, StreamObserver<Lease> observer) {
        replyLease(request, service::advanceEpoch, observer);
    }

    @Override
    public void getLease(GetImageRequest request, StreamObserver<Lease> observer) {
        reply(() -> service.getLease(request.getName()), lease -> ControllerProtos.toProto(request.getName(), lease), observer);
    }

    @Override
    public void recordSyncSites(RecordSyncSitesRequest request, StreamObserver<Lease> observer) {
        reply(() -> service.recordSyncSites(request.getImage(), request.getSite(), request.getEpoch(), request.getSyncSitesList()),
                lease -> ControllerProtos.toProto(request.getImage(), lease), observer);
    }

    @Override
    public StreamObserver<FlushRequest> flush(StreamObserver<FlushResponse> observer) {
        return new FlushStream(service, observer);
    }

    @Override
    public void closeImage(LeaseRequest request, StreamObserver<Lease> observer) {
        replyLease(request, service::closeImage, observer);
    }

    @Override
    public void prepare(PrepareRequest request, StreamObserver<Lease> observer) {
        reply(() -> service.prepare(request.getImage(), request.getFromSite(), request.getToSite()),
                lease -> ControllerProtos.toProto(request.getImage(), lease), observer);
    }

    @Override
    public void cancelHandoff(HandoffRequest request, StreamObserver<Lease> observer) {
        replyHandoff(request, service::cancelHandoff, observer);
    }

    @Override
    public void completeHandoff(HandoffRequest request, StreamObserver<Lease> observer) {
        replyHandoff(request, service::completeHandoff, observer);
    }

    @Override
    public void breakLease(LeaseRequest request, StreamObserver<Lease> observer) {
        replyLease(request, service::breakLease, observer);
    }

    @Override
    public void setImage(SetImageRequest request, StreamObserver<ImageStatus> observer) {
        reply(() -> service.setImage(request.getName(), ControllerProtos.update(request.getReplication())), ControllerProtos::toProto, observer);
    }

    @Override
    public void reportRtt(ReportRttRequest request, StreamObserver<ReportRttResponse> observer) {
        reply(() -> service.reportRtt(request.getSite(), ControllerProtos.rttMicros(request), request.getProbePeriodMillis()), row -> ReportRttResponse.getDefaultInstance(), observer);
    }

    @Override
    public void getRttMatrix(GetRttMatrixRequest request, StreamObserver<RttMatrix> observer) {
        reply(service::rttMatrix, ControllerProtos::toProto, observer);
    }

    @Override
    public void getClusterStatus(GetClusterStatusRequest request, StreamObserver<ClusterStatus> observer) {
        reply(() -> cluster.statusAsync(request.getImage()), Function.identity(), observer);
    }

    @Override
    public void getImageLocality(GetImageLocalityRequest request, StreamObserver<ImageLocality> observer) {
        reply(() -> cluster.localityAsync(request.getImage(), request.getRegions()), Function.identity(), observer);
    }

    /** What a site asks of the lease it holds at an epoch. */
    @FunctionalInterface
    private interface LeaseCall {
        CompletableFuture<io.heliotrope.controller.lease.Lease> apply(String image, String site, long epoch);
    }

    /** What the driver asks of a handoff between two sites. */
    @FunctionalInterface
    private interface HandoffCall {
        CompletableFuture<io.heliotrope.controller.lease.Lease> apply(String image, String from, String to);
    }

    private static void replyHandoff(HandoffRequest request, HandoffCall call, StreamObserver<Lease> observer) {
        reply(() -> call.apply(request.getImage(), request.getFromSite(), request.getToSite()),
                lease -> ControllerProtos.toProto(request.getImage(), lease), observer);
    }

    private static void replyLease(LeaseRequest request, LeaseCall call, StreamObserver<Lease> observer) {
        reply(() -> call.apply(request.getImage(), request.getSite(), request.getEpoch()),
                lease -> ControllerProtos.toProto(request.getImage(), lease), observer);
    }
}
