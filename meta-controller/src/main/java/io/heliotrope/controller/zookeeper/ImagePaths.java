package io.heliotrope.controller.zookeeper;

import static java.util.Objects.requireNonNull;

/** The znodes of one image; see {@link ZooKeeperLayout}. */
public record ImagePaths(String image) {
    public ImagePaths {
        requireNonNull(image, "image is null");
    }

    public String config() {
        return image + "/config";
    }

    public String lease() {
        return image + "/lease";
    }

    public String meta() {
        return image + "/meta";
    }

    public String log() {
        return image + "/log";
    }

    public String log(long seq) {
        return log() + "/" + name(seq);
    }

    public String snapshots() {
        return image + "/snap";
    }

    public String snapshot(long seq) {
        return snapshots() + "/" + name(seq);
    }

    /** The lease moves ({@code io.heliotrope.controller.lease.LeaseMoves}); missing until the first grant. */
    public String moves() {
        return image + "/moves";
    }

    public String staging() {
        return image + "/staging";
    }

    public String staging(String id) {
        return staging() + "/" + id;
    }

    public String chunk(String id, int index) {
        return staging(id) + "/" + index;
    }

    /** The sequence number a log or snapshot child is named after; -1 for a name that is not one. */
    public static long seq(String child) {
        try {
            return Long.parseLong(child);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String name(long seq) {
        String digits = Long.toString(seq);
        return "0".repeat(Math.max(0, 10 - digits.length())) + digits;
    }
}
