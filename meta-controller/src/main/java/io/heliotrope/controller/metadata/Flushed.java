package io.heliotrope.controller.metadata;

import io.heliotrope.controller.lease.Lease;

import static java.util.Objects.requireNonNull;

/** A committed flush: the metaSeq its delta got, how many blocks it had, and the lease and meta after it. */
public record Flushed(long metaSeq, int blocks, Lease lease, MetaState meta) {
    public Flushed {
        requireNonNull(lease, "lease is null");
        requireNonNull(meta, "meta is null");
    }
}
