package io.heliotrope.cli.client;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.GetClusterStatusRequest;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.GetRttMatrixRequest;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.LeaseRequest;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SetImageRequest;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The controller's image catalog, RTT matrix and cluster view as the CLI uses them. */
public final class CatalogClient extends GrpcClient {
    public CatalogClient(Target target) {
        super(target);
    }

    /** The controller this process runs or joins. */
    public CatalogClient(String address) {
        this(new Target(Target.Kind.CONTROLLER, address, ""));
    }

    public ImageStatus create(String name, long sizeBytes) {
        return create(name, sizeBytes, ReplicationSettings.getDefaultInstance());
    }

    public ImageStatus create(String name, long sizeBytes, ReplicationSettings replication) {
        return call(() -> blocking().createImage(CreateImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).setReplication(replication).build()));
    }

    public ImageStatus set(String name, ReplicationSettings replication) {
        return call(() -> blocking().setImage(SetImageRequest.newBuilder().setName(name).setReplication(replication).build()));
    }

    public RttMatrix rttMatrix() {
        return call(() -> blocking().getRttMatrix(GetRttMatrixRequest.getDefaultInstance()));
    }

    public void delete(String name) {
        call(() -> blocking().deleteImage(DeleteImageRequest.newBuilder().setName(name).build()));
    }

    /** Every site, the RTT matrix and every image, each merged with what the sites report. */
    public ClusterStatus clusterStatus() {
        return call(() -> blocking().getClusterStatus(GetClusterStatusRequest.getDefaultInstance()));
    }

    /** {@link #clusterStatus()} within {@code deadline}: whether this controller answers, and whether it reaches ZooKeeper. */
    public ClusterStatus clusterStatus(Duration deadline) {
        return call(() -> ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .getClusterStatus(GetClusterStatusRequest.getDefaultInstance()));
    }

    /** One image merged with what each site reports, and the cluster's sites; {@link HeliotropeException} when the catalog has no such image. */
    public ClusterStatus clusterStatus(String image) {
        return call(() -> blocking().getClusterStatus(GetClusterStatusRequest.newBuilder().setImage(image).build()));
    }

    /** The image's write lease as the controller holds it. */
    public Lease lease(String image) {
        return call(() -> blocking().getLease(GetImageRequest.newBuilder().setName(image).build()));
    }

    /** Breaks {@code image}'s write lease held by {@code holder} at {@code epoch}; returns the lease as broken. */
    public Lease breakLease(String image, String holder, long epoch) {
        return call(() -> blocking().breakLease(LeaseRequest.newBuilder().setImage(image).setSite(holder).setEpoch(epoch).build()));
    }

    /** Registers site {@code name} at these addresses, as the site registers itself when it joins. */
    public void registerSite(String name, String grpcAddress, String nbdAddress) {
        call(() -> blocking().registerSite(Site.newBuilder().setName(name).setGrpcAddress(grpcAddress).setNbdAddress(nbdAddress).build()));
    }

    private ControllerServiceGrpc.ControllerServiceBlockingStub blocking() {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
