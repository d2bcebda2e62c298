package io.heliotrope.it;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.BlockMetadata;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc.ControllerServiceBlockingStub;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc.ControllerServiceStub;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.FlushHeader;
import io.heliotrope.proto.controller.v1.FlushRequest;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.LeaseRequest;
import io.heliotrope.proto.controller.v1.OpenImageRequest;
import io.heliotrope.proto.controller.v1.OpenImageResponse;
import io.heliotrope.proto.controller.v1.OpenMode;
import io.heliotrope.proto.controller.v1.Site;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The calls a site makes to a controller, each with a deadline. A failed call throws the
 * {@link HeliotropeException} the controller raised (PEER_UNAVAILABLE when it is gone).
 */
final class ControllerClient {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final int BATCH = 10_000;

    private final String target;
    private final Supplier<ControllerServiceBlockingStub> blocking;
    private final Supplier<ControllerServiceStub> async;

    /** Calls whichever channel the controller has at the time, so a client outlives a restart. */
    ControllerClient(TestingController controller) {
        this.target = controller.target();
        this.blocking = () -> ControllerServiceGrpc.newBlockingStub(controller.channel()).withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        this.async = () -> ControllerServiceGrpc.newStub(controller.channel()).withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** What a site learns from opening an image: the first message's lease and metaSeq, and the entries applied in order. */
    record Opened(Lease lease, long metaSeq, boolean snapshot, Map<Long, BlockVersion> blocks) {}

    /** The error code of a call that must fail; fails if it succeeds. */
    static ErrorCode errorOf(ThrowingCallable call) {
        try {
            call.call();
        } catch (HeliotropeException e) {
            return e.code();
        } catch (Throwable e) {
            throw new AssertionError("expected a HeliotropeException, got " + e, e);
        }
        throw new AssertionError("expected the call to fail, but it succeeded");
    }

    void registerSite(String name) {
        call(() -> blocking.get().registerSite(Site.newBuilder()
                .setName(name)
                .setGrpcAddress("127.0.0.1:7410")
                .setNbdAddress("127.0.0.1:10809")
                .build()));
    }

    ImageStatus createImage(String name, long sizeBytes) {
        return call(() -> blocking.get().createImage(CreateImageRequest.newBuilder().setName(name).setSizeBytes(sizeBytes).build()));
    }

    /** Creates an image and opens it for write at {@code site}; returns the lease epoch. */
    long createAndOpenForWrite(String image, long sizeBytes, String site) {
        createImage(image, sizeBytes);
        return open(image, site, OpenMode.OPEN_MODE_WRITE, 0).lease().getEpoch();
    }

    ImageStatus status(String image) {
        return call(() -> blocking.get().getImage(GetImageRequest.newBuilder().setName(image).build()));
    }

    Opened open(String image, String site, OpenMode mode, long cachedMetaSeq) {
        return call(() -> {
            Iterator<OpenImageResponse> responses = blocking.get().openImage(OpenImageRequest.newBuilder()
                    .setImage(image).setSite(site).setMode(mode).setCachedMetaSeq(cachedMetaSeq).build());
            OpenImageResponse first = responses.next();
            boolean snapshot = first.getSnapshot();
            Map<Long, BlockVersion> blocks = new HashMap<>();
            apply(first.getEntries(), blocks);
            while (responses.hasNext()) {
                OpenImageResponse next = responses.next();
                snapshot |= next.getSnapshot();
                apply(next.getEntries(), blocks);
            }
            return new Opened(first.getLease(), first.getMetaSeq(), snapshot, blocks);
        });
    }

    Lease renew(String image, String site, long epoch) {
        return call(() -> blocking.get().renewLease(leaseRequest(image, site, epoch)));
    }

    Lease close(String image, String site, long epoch) {
        return call(() -> blocking.get().closeImage(leaseRequest(image, site, epoch)));
    }

    /** Streams the header, then the delta in batches; returns once the controller answered. */
    FlushResponse flush(String image, String site, long epoch, Delta delta, boolean release) {
        ResponseFuture<FlushResponse> response = new ResponseFuture<>();
        StreamObserver<FlushRequest> requests = async.get().flush(response);
        requests.onNext(FlushRequest.newBuilder()
                .setHeader(FlushHeader.newBuilder().setImage(image).setSite(site).setEpoch(epoch).setRelease(release))
                .build());
        List<Map.Entry<Long, BlockVersion>> batch = new ArrayList<>(BATCH);
        for (Map.Entry<Long, BlockVersion> entry : delta.entries().entrySet()) {
            batch.add(entry);
            if (batch.size() == BATCH) {
                requests.onNext(FlushRequest.newBuilder().setEntries(metadata(batch)).build());
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            requests.onNext(FlushRequest.newBuilder().setEntries(metadata(batch)).build());
        }
        requests.onCompleted();
        try {
            return response.get();
        } catch (ExecutionException e) {
            throw GrpcErrors.toException(e.getCause(), target);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while flushing to " + target, e);
        }
    }

    ImageStatus compact(String image) {
        return call(() -> blocking.get().compactImage(GetImageRequest.newBuilder().setName(image).build()));
    }

    private static LeaseRequest leaseRequest(String image, String site, long epoch) {
        return LeaseRequest.newBuilder().setImage(image).setSite(site).setEpoch(epoch).build();
    }

    /** One batch, column by column; holders are 1-based indexes into the batch's site list, 0 for a zero marker. */
    private static BlockMetadata metadata(List<Map.Entry<Long, BlockVersion>> entries) {
        BlockMetadata.Builder metadata = BlockMetadata.newBuilder();
        List<String> sites = new ArrayList<>();
        for (Map.Entry<Long, BlockVersion> entry : entries) {
            BlockVersion value = entry.getValue();
            int holder = 0;
            if (!value.isZero()) {
                if (!sites.contains(value.holder())) {
                    sites.add(value.holder());
                }
                holder = sites.indexOf(value.holder()) + 1;
            }
            metadata.addBlocks(entry.getKey()).addVersions(value.version()).addHolders(holder);
        }
        return metadata.addAllSites(sites).build();
    }

    private static void apply(BlockMetadata entries, Map<Long, BlockVersion> blocks) {
        for (int i = 0; i < entries.getBlocksCount(); i++) {
            int holder = entries.getHolders(i);
            String site = holder == 0 ? "" : entries.getSites(holder - 1);
            blocks.put(entries.getBlocks(i), new BlockVersion(entries.getVersions(i), site));
        }
    }

    private <T> T call(Supplier<T> call) {
        try {
            return call.get();
        } catch (StatusRuntimeException e) {
            throw GrpcErrors.toException(e, target);
        }
    }
}
