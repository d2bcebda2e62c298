package io.heliotrope.controller.service;

import io.heliotrope.controller.metadata.CompactionPolicy;

import java.time.Duration;

import static java.util.Objects.requireNonNullElse;

/**
 * What the controller's domain needs to know: where its state lives in ZooKeeper, the lease TTL, when to compact, and
 * how long a prepared handoff lasts unless prepared again (the driver renews it every 10 s).
 */
public record ControllerServiceConfig(String rootPath, Duration leaseTtl, CompactionPolicy compaction, Duration prepareTtl) {
    public static final String DEFAULT_ROOT = "/heliotrope";
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);
    public static final Duration DEFAULT_PREPARE_TTL = Duration.ofSeconds(30);

    public ControllerServiceConfig {
        rootPath = rootPath == null || rootPath.isEmpty() ? DEFAULT_ROOT : rootPath;
        leaseTtl = leaseTtl == null || leaseTtl.isZero() ? DEFAULT_LEASE_TTL : leaseTtl;
        compaction = requireNonNullElse(compaction, CompactionPolicy.DEFAULT);
        prepareTtl = prepareTtl == null || prepareTtl.isZero() ? DEFAULT_PREPARE_TTL : prepareTtl;
        if (leaseTtl.isNegative() || prepareTtl.isNegative()) {
            throw new IllegalArgumentException("lease and prepare TTLs must be positive: " + leaseTtl + ", " + prepareTtl);
        }
    }
}
