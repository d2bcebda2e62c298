package io.heliotrope.scheduler.runner;

/**
 * What AbortIncoming found: the destination had been resumed already (the migration
 * committed; {@code resumeMicros} is its RESUME), or it never will be (its QEMU was killed).
 */
public record AbortResult(boolean resumed, long resumeMicros) {}
