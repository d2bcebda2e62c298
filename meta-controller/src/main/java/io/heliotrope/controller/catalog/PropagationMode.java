package io.heliotrope.controller.catalog;

/** How a site spreads an image's blocks to other sites (DESIGN.md section 6). */
public enum PropagationMode {
    /** No local copy: every read and write goes to the home site. */
    REMOTE,
    /** A write is acknowledged once other sites hold it. */
    SYNC,
    /** No pushes; blocks are fetched when read elsewhere. */
    ON_DEMAND,
    /** Likely-read blocks are pushed in the background. */
    PROACTIVE
}
