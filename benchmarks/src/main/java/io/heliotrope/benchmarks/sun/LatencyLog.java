package io.heliotrope.benchmarks.sun;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One CSV row per answered request: {@code t_ms,region,op,latency_us,attempts,outcome}, the
 * time in milliseconds since the run started, when the answer came.
 */
final class LatencyLog implements AutoCloseable {
    private final BufferedWriter out;
    private final long startNanos;

    LatencyLog(Path file, long startNanos) throws IOException {
        this.out = Files.newBufferedWriter(file);
        this.startNanos = startNanos;
        out.write("t_ms,region,op,latency_us,attempts,outcome\n");
    }

    synchronized void record(String region, boolean write, long latencyMicros, int attempts, String outcome) {
        try {
            out.write((System.nanoTime() - startNanos) / 1_000_000 + "," + region + "," + (write ? "write" : "read") + "," + latencyMicros + ","
                    + attempts + "," + outcome + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
