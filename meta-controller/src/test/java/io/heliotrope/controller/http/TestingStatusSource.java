package io.heliotrope.controller.http;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageLocality;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A {@link StatusSource} that answers what the test set, stamped with the time of the
 * call, and checks its arguments as the controller does; {@link #failWith} makes every
 * call fail.
 */
final class TestingStatusSource implements StatusSource {
    private static final int MAX_REGIONS = 4096;

    private volatile ClusterStatus status = ClusterStatus.getDefaultInstance();
    private volatile Map<String, ImageLocality> localities = Map.of();
    private volatile RuntimeException failure;
    private volatile int lastRegions;

    void set(ClusterStatus status, List<ImageLocality> localities) {
        this.status = requireNonNull(status, "status is null");
        this.localities = localities.stream().collect(Collectors.toUnmodifiableMap(ImageLocality::getImage, locality -> locality));
        this.failure = null;
    }

    void failWith(RuntimeException failure) {
        this.failure = failure;
    }

    /** The regions the last locality call asked for. */
    int lastRegions() {
        return lastRegions;
    }

    @Override
    public ClusterStatus status(String imageOrEmpty) {
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

    @Override
    public ImageLocality locality(String image, int regions) {
        throwFailure();
        lastRegions = regions;
        if (regions > MAX_REGIONS) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "at most " + MAX_REGIONS + " regions, not " + regions);
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
