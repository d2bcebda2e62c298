package io.heliotrope.controller.service;

import io.heliotrope.controller.metadata.CompactionPolicy;

import java.time.Duration;

import static java.util.Objects.requireNonNullElse;

/** What the controller's domain needs to know: where its state lives in ZooKeeper, the lease TTL, when to compact. */
public record ControllerServiceConfig(String rootPath, Duration leaseTtl, CompactionPolicy compaction) {
    public static final String DEFAULT_ROOT = "/heliotrope";
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);

    public ControllerServiceConfig {
        rootPath = rootPath == null || rootPath.isEmpty() ? DEFAULT_ROOT : rootPath;
        leaseTtl = leaseTtl == null || leaseTtl.isZero() ? DEFAULT_LEASE_TTL : leaseTtl;
        compaction = requireNonNullElse(compaction, CompactionPolicy.DEFAULT);
        if (leaseTtl.isNegative()) {
            throw new IllegalArgumentException("lease TTL must be positive: " + leaseTtl);
        }
    }
}
