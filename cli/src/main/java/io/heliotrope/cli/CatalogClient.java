package io.heliotrope.cli;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.GetClusterStatusRequest;
import io.heliotrope.proto.controller.v1.GetRttMatrixRequest;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SetImageRequest;

import java.util.concurrent.TimeUnit;

/** The controller's image catalog, RTT matrix and cluster view as the CLI uses them. */
final class CatalogClient extends GrpcClient {
    CatalogClient(Target target) {
        super(target);
    }

    /** The controller this process runs or joins. */
    CatalogClient(String address) {
        this(new Target(Target.Kind.CONTROLLER, address, ""));
    }

    ImageStatus create(String name, long sizeBytes) {
        return create(name, sizeBytes, ReplicationSettings.getDefaultInstance());
    }

    ImageStatus create(String name, long sizeBytes, ReplicationSettings replication) {
        return call(() -> blocking().createImage(CreateImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).setReplication(replication).build()));
    }

    ImageStatus set(String name, ReplicationSettings replication) {
        return call(() -> blocking().setImage(SetImageRequest.newBuilder().setName(name).setReplication(replication).build()));
    }

    RttMatrix rttMatrix() {
        return call(() -> blocking().getRttMatrix(GetRttMatrixRequest.getDefaultInstance()));
    }

    void delete(String name) {
        call(() -> blocking().deleteImage(DeleteImageRequest.newBuilder().setName(name).build()));
    }

    /** Every site, the RTT matrix and every image, each merged with what the sites report. */
    ClusterStatus clusterStatus() {
        return call(() -> blocking().getClusterStatus(GetClusterStatusRequest.getDefaultInstance()));
    }

    /** One image merged with what each site reports, and the cluster's sites; {@link HeliotropeException} when the catalog has no such image. */
    ClusterStatus clusterStatus(String image) {
        return call(() -> blocking().getClusterStatus(GetClusterStatusRequest.newBuilder().setImage(image).build()));
    }

    private ControllerServiceGrpc.ControllerServiceBlockingStub blocking() {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
