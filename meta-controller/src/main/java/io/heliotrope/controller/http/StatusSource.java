package io.heliotrope.controller.http;

import io.heliotrope.controller.app.ApplicationsStatus;
import io.heliotrope.controller.cluster.VmsStatus;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageLocality;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Where the status port gets what it shows: the answers of GetClusterStatus (every site and
 * image, or only the image named; all when the name is empty) and GetImageLocality (image,
 * regions; 0 regions for the default), as the controller's cluster view gives them, and the
 * VMs with their runtimes, leases and migrations ({@code VmView}), and the scheduler's
 * applications with their decisions ({@code ApplicationView}). A call
 * fails with a {@link io.heliotrope.error.HeliotropeException}: {@code IMAGE_NOT_FOUND},
 * {@code INVALID_ARGUMENT}, or {@code PEER_UNAVAILABLE} when ZooKeeper cannot be reached.
 */
public record StatusSource(
        Function<String, CompletableFuture<ClusterStatus>> status,
        BiFunction<String, Integer, CompletableFuture<ImageLocality>> locality,
        Supplier<CompletableFuture<VmsStatus>> vms,
        Supplier<CompletableFuture<ApplicationsStatus>> applications) {
    public StatusSource {
        requireNonNull(status, "status is null");
        requireNonNull(locality, "locality is null");
        requireNonNull(vms, "vms is null");
        requireNonNull(applications, "applications is null");
    }
}
