package io.heliotrope.cli;

import io.grpc.stub.StreamObserver;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageResponse;
import io.heliotrope.proto.controller.v1.GetClusterStatusRequest;
import io.heliotrope.proto.controller.v1.GetRttMatrixRequest;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.ListVmsRequest;
import io.heliotrope.proto.controller.v1.ListVmsResponse;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.SetImageRequest;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A controller on a free loopback port that answers the cluster view with a canned
 * {@link ClusterStatus}, knows no VMs, and records the catalog changes it is asked for.
 */
final class TestingController extends ControllerServiceGrpc.ControllerServiceImplBase implements AutoCloseable {
    final List<Object> requests = new CopyOnWriteArrayList<>();
    private final ClusterStatus cluster;
    private final LoopbackServer server;

    TestingController(ClusterStatus cluster) {
        this.cluster = cluster;
        this.server = new LoopbackServer(this, new VmServiceGrpc.VmServiceImplBase() {
            @Override
            public void listVms(ListVmsRequest request, StreamObserver<ListVmsResponse> observer) {
                reply(ListVmsResponse.getDefaultInstance(), observer);
            }
        });
    }

    String target() {
        return server.target();
    }

    @Override
    public void getClusterStatus(GetClusterStatusRequest request, StreamObserver<ClusterStatus> observer) {
        if (request.getImage().isEmpty()) {
            reply(cluster, observer);
            return;
        }
        List<ClusterImage> images = cluster.getImagesList().stream()
                .filter(image -> image.getStatus().getConfig().getName().equals(request.getImage())).toList();
        if (images.isEmpty()) {
            observer.onError(GrpcErrors.toStatus(new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + request.getImage() + "' does not exist")));
            return;
        }
        reply(cluster.toBuilder().clearImages().addAllImages(images).build(), observer);
    }

    @Override
    public void getRttMatrix(GetRttMatrixRequest request, StreamObserver<RttMatrix> observer) {
        reply(cluster.getRtt(), observer);
    }

    @Override
    public void createImage(CreateImageRequest request, StreamObserver<ImageStatus> observer) {
        requests.add(request);
        reply(ImageStatus.newBuilder().setConfig(ImageConfig.newBuilder().setName(request.getName()).setSizeBytes(request.getSizeBytes())
                .setMode(request.getReplication().getMode())).build(), observer);
    }

    @Override
    public void setImage(SetImageRequest request, StreamObserver<ImageStatus> observer) {
        requests.add(request);
        reply(ImageStatus.newBuilder().setConfig(ImageConfig.newBuilder().setName(request.getName()).setMode(request.getReplication().getMode())).build(),
                observer);
    }

    @Override
    public void deleteImage(DeleteImageRequest request, StreamObserver<DeleteImageResponse> observer) {
        requests.add(request);
        reply(DeleteImageResponse.getDefaultInstance(), observer);
    }

    private static <T> void reply(T value, StreamObserver<T> observer) {
        observer.onNext(value);
        observer.onCompleted();
    }

    @Override
    public void close() {
        server.close();
    }
}
