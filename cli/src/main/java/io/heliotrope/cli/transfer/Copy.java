package io.heliotrope.cli.transfer;

import java.io.IOException;

/** One copy of an import or an export, which another thread may stop (Ctrl-C does). */
interface Copy {
    /** Copies it all; returns the bytes of data moved, or -1 when a tool that does not say moved them. */
    long run() throws IOException, InterruptedException;

    /** Makes {@link #run} fail soon, from any thread. */
    void abort();
}
