package io.heliotrope.controller.catalog;

/**
 * Whether a site that opens an image for write pulls the blocks it lacks in the background
 * (DESIGN.md section 4), as set; {@link ImageConfig#pulls()} says whether it does.
 */
public enum PullMode {
    /** Nothing set: the mode's default, on for proactive and sync, off for on-demand and remote. */
    UNSPECIFIED,
    ON,
    OFF
}
