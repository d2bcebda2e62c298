package io.heliotrope.storage.view;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.controller.v1.BlockMetadata;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.FlushRequest;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.LeaseRequest;
import io.heliotrope.proto.controller.v1.ListImagesRequest;
import io.heliotrope.proto.controller.v1.OpenImageRequest;
import io.heliotrope.proto.controller.v1.OpenImageResponse;
import io.heliotrope.proto.controller.v1.OpenMode;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/** The controller over gRPC, as one site sees it. */
public final class GrpcController implements Controller {
    private static final long DEADLINE_SECONDS = 120;
    /** Well under any lease TTL: a renewal that takes longer is as good as lost. */
    private static final long RENEW_DEADLINE_SECONDS = 5;
    private static final int BATCH = 65_536;

    private final String site;
    private final String target;
    private final ManagedChannel channel;

    public GrpcController(String site, String target) {
        this.site = requireNonNull(site, "site is null");
        this.target = requireNonNull(target, "target is null");
        this.channel = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
    }

    @Override
    public void register(String grpcAddress, String nbdAddress) {
        call(() -> blocking().registerSite(Site.newBuilder().setName(site).setGrpcAddress(grpcAddress).setNbdAddress(nbdAddress).build()));
    }

    @Override
    public Map<String, UUID> images() {
        return call(() -> {
            Map<String, UUID> images = new LinkedHashMap<>();
            for (ImageConfig image : blocking().listImages(ListImagesRequest.getDefaultInstance()).getImagesList()) {
                images.put(image.getName(), UUID.fromString(image.getUuid()));
            }
            return images;
        });
    }

    @Override
    public Opened open(String image, long cachedMetaSeq) {
        return call(() -> {
            Iterator<OpenImageResponse> responses = blocking().openImage(OpenImageRequest.newBuilder()
                    .setImage(image).setSite(site).setMode(OpenMode.OPEN_MODE_WRITE).setCachedMetaSeq(cachedMetaSeq).build());
            OpenImageResponse first = responses.next();
            List<GlobalBlock> entries = new ArrayList<>();
            addEntries(first.getEntries(), entries);
            while (responses.hasNext()) {
                addEntries(responses.next().getEntries(), entries);
            }
            return new Opened(UUID.fromString(first.getConfig().getUuid()), first.getLease().getEpoch(), Duration.ofMillis(first.getLease().getTtlMillis()),
                    first.getConfig().getSizeBytes(), first.getMetaSeq(), first.getSnapshot(), entries);
        });
    }

    @Override
    public void renew(String image, long epoch) {
        call(() -> renewing().renewLease(leaseRequest(image, epoch)));
    }

    @Override
    public long advance(String image, long epoch) {
        return call(() -> renewing().advanceEpoch(leaseRequest(image, epoch)).getEpoch());
    }

    @Override
    public LeaseState lease(String image) {
        Lease lease = call(() -> blocking().getLease(GetImageRequest.newBuilder().setName(image).build()));
        return new LeaseState(lease.getHolder(), lease.getGrantEpoch(), lease.getEpoch());
    }

    @Override
    public long flush(String image, long epoch, List<BlockVersion> blocks, boolean release) {
        ResponseFuture<FlushResponse> response = new ResponseFuture<>();
        StreamObserver<FlushRequest> requests = ControllerServiceGrpc.newStub(channel)
                .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
                .flush(response);
        requests.onNext(FlushRequest.newBuilder()
                .setHeader(FlushHeader.newBuilder().setImage(image).setSite(site).setEpoch(epoch).setRelease(release))
                .build());
        for (int from = 0; from < blocks.size(); from += BATCH) {
            BlockMetadata.Builder batch = BlockMetadata.newBuilder().addSites(site);
            for (BlockVersion block : blocks.subList(from, Math.min(blocks.size(), from + BATCH))) {
                batch.addBlocks(block.block()).addVersions(block.version()).addHolders(block.state() == BlockState.ZERO ? 0 : 1);
            }
            requests.onNext(FlushRequest.newBuilder().setEntries(batch).build());
        }
        requests.onCompleted();
        try {
            return response.join().getMetaSeq();
        } catch (RuntimeException e) {
            throw GrpcErrors.toException(e, "controller at " + target);
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }

    private static void addEntries(BlockMetadata metadata, List<GlobalBlock> entries) {
        for (int i = 0; i < metadata.getBlocksCount(); i++) {
            int holder = metadata.getHolders(i);
            entries.add(new GlobalBlock(metadata.getBlocks(i), metadata.getVersions(i), holder == 0 ? null : metadata.getSites(holder - 1)));
        }
    }

    private ControllerServiceGrpc.ControllerServiceBlockingStub blocking() {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    /** For the calls that renew the lease. */
    private ControllerServiceGrpc.ControllerServiceBlockingStub renewing() {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(RENEW_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    private LeaseRequest leaseRequest(String image, long epoch) {
        return LeaseRequest.newBuilder().setImage(image).setSite(site).setEpoch(epoch).build();
    }

    private <T> T call(Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (RuntimeException e) {
            throw GrpcErrors.toException(e, "controller at " + target);
        }
    }
}
