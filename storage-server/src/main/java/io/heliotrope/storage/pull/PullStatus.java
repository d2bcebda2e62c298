package io.heliotrope.storage.pull;

import static java.util.Objects.requireNonNull;

/**
 * The background pull of an image open for write at this site, as {@code image show} and the
 * status page show it.
 *
 * @param image the image's name
 * @param state what the pull does
 * @param elsewhereBlocks blocks whose current version is only at other sites now
 * @param lackedBlocks how many of them there were when the pull started (0 before)
 * @param pulledBytes block bytes the pull brought here
 * @param bytesPerSecond the pull's rate over the last 5 s
 */
public record PullStatus(String image, State state, long elsewhereBlocks, long lackedBlocks, long pulledBytes, long bytesPerSecond) {
    public PullStatus {
        requireNonNull(image, "image is null");
        requireNonNull(state, "state is null");
    }

    public enum State {
        /** Not pulled: the image's settings say no. */
        OFF,
        /** The session does not hold the lease yet (the standby of a handoff). */
        WAITING,
        RUNNING,
        /** Every block is current here. */
        DONE,
        /** The session no longer holds the lease it pulled under, or is closing. */
        STOPPED
    }
}
