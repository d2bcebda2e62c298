package io.heliotrope.storage.session;

/** Where a handoff moved the lease: {@code epoch} at the site it went to, by the flush of {@code metaSeq} (0 when its reply was lost). */
public record Handed(long epoch, long metaSeq) {}
