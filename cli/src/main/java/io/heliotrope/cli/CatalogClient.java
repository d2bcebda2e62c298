package io.heliotrope.cli;

import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.GetRttMatrixRequest;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.ListImagesRequest;
import io.heliotrope.proto.controller.v1.ListSitesRequest;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SetImageRequest;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** The controller's image catalog and RTT matrix as the CLI uses them. */
final class CatalogClient extends GrpcClient {
    CatalogClient(String target) {
        super(target, "helio controller");
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

    List<ImageConfig> list() {
        return call(() -> blocking().listImages(ListImagesRequest.getDefaultInstance()).getImagesList());
    }

    ImageStatus get(String name) {
        return call(() -> blocking().getImage(GetImageRequest.newBuilder().setName(name).build()));
    }

    List<Site> sites() {
        return call(() -> blocking().listSites(ListSitesRequest.getDefaultInstance()).getSitesList());
    }

    void delete(String name) {
        call(() -> blocking().deleteImage(DeleteImageRequest.newBuilder().setName(name).build()));
    }

    private ControllerServiceGrpc.ControllerServiceBlockingStub blocking() {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
