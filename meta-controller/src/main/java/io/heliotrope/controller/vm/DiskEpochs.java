package io.heliotrope.controller.vm;

/** A disk's lease epoch at the source before a migration, and at the site it ended at after it. */
public record DiskEpochs(String image, long epochBefore, long epochAfter) {}
