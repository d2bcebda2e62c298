package io.heliotrope.controller.http;

import io.heliotrope.controller.app.ApplicationsStatus;
import io.heliotrope.controller.cluster.VmsStatus;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageLocality;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The cluster view of a {@link StatusSource}: it answers what the test set, stamped with the
 * time of the call, and checks its arguments as the controller does; {@link #failWith} makes
 * every call fail, {@link #hang} every answer wait forever.
 */
final class TestingStatusSource {
    private static final int MAX_REGIONS = 4096;

    private volatile ClusterStatus status = ClusterStatus.getDefaultInstance();
    private volatile Map<String, ImageLocality> localities = Map.of();
    private volatile VmsStatus vms = new VmsStatus(0, List.of(), List.of(), List.of());
    private volatile ApplicationsStatus applications = new ApplicationsStatus(0, List.of(), List.of());
    private volatile RuntimeException failure;
    private volatile boolean hanging;
    private volatile int lastRegions;

    void set(ClusterStatus status, List<ImageLocality> localities) {
        this.status = requireNonNull(status, "status is null");
        this.localities = localities.stream().collect(Collectors.toUnmodifiableMap(ImageLocality::getImage, locality -> locality));
        this.failure = null;
        this.hanging = false;
    }

    void set(VmsStatus vms) {
        this.vms = requireNonNull(vms, "vms is null");
    }

    void set(ApplicationsStatus applications) {
        this.applications = requireNonNull(applications, "applications is null");
    }

    void failWith(RuntimeException failure) {
        this.failure = failure;
    }

    void hang() {
        this.hanging = true;
    }

    StatusSource source() {
        return new StatusSource(image -> answer(() -> status(image)), (image, regions) -> answer(() -> locality(image, regions)),
                () -> answer(this::vms), () -> answer(this::applications));
    }

    /** The regions the last locality call asked for. */
    int lastRegions() {
        return lastRegions;
    }

    private <T> CompletableFuture<T> answer(Supplier<T> call) {
        return hanging ? new CompletableFuture<>() : CompletableFuture.supplyAsync(call);
    }

    private ClusterStatus status(String imageOrEmpty) {
        throwFailure();
        ClusterStatus.Builder answer = status.toBuilder().setGeneratedEpochMillis(System.currentTimeMillis());
        if (imageOrEmpty.isEmpty()) {
            return answer.build();
        }
        List<ClusterImage> images = status.getImagesList().stream()
                .filter(image -> image.getStatus().getConfig().getName().equals(imageOrEmpty))
                .toList();
        if (images.isEmpty()) {
            throw notFound(imageOrEmpty);
        }
        return answer.clearImages().addAllImages(images).build();
    }

    private VmsStatus vms() {
        throwFailure();
        VmsStatus answer = vms;
        return new VmsStatus(System.currentTimeMillis(), answer.vms(), answer.inFlight(), answer.history());
    }

    private ApplicationsStatus applications() {
        throwFailure();
        ApplicationsStatus answer = applications;
        return new ApplicationsStatus(System.currentTimeMillis(), answer.applications(), answer.decisions());
    }

    private ImageLocality locality(String image, int regions) {
        throwFailure();
        lastRegions = regions;
        if (regions < 0 || regions > MAX_REGIONS) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "1 to " + MAX_REGIONS + " regions (0 for the default), not " + regions);
        }
        ImageLocality locality = localities.get(image);
        if (locality == null) {
            throw notFound(image);
        }
        return locality;
    }

    private void throwFailure() {
        if (failure != null) {
            throw failure;
        }
    }

    private static HeliotropeException notFound(String image) {
        return new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + image + "' does not exist");
    }
}
