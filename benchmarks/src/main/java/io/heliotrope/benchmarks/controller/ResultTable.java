package io.heliotrope.benchmarks.controller;

import io.heliotrope.benchmarks.controller.MetadataBenchmark.Measurement;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/** Every repetition for the CSV; per dirty-block count the median of each column for the table, and the goals. */
final class ResultTable {
    private static final int GOAL_CLOSE_BLOCKS = 100_000;
    private static final double GOAL_CLOSE_MILLIS = 1000;
    private static final double GOAL_BYTES_PER_BLOCK = 6;

    private final Map<Integer, List<Measurement>> byCount = new TreeMap<>();
    private final List<String> csv = new ArrayList<>(List.of("dirty_blocks,repetition,close_ms,open_from_0_ms,open_from_recent_ms,compact_ms,"
            + "open_from_0_snapshot_ms,bytes_per_block_after_close,bytes_per_block_compacted,zookeeper_bytes_per_block_compacted,compacted_in_background"));

    void add(int repetition, Measurement measurement) {
        byCount.computeIfAbsent(measurement.blocks(), count -> new ArrayList<>()).add(measurement);
        csv.add(row(Integer.toString(repetition), measurement));
    }

    String format() {
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "%12s %9s %12s %12s %11s %12s | %11s %11s %11s%n", "", "", "open from", "open from",
                "", "open from 0", "B/block", "B/block", "ZooKeeper"));
        table.append(String.format(Locale.ROOT, "%12s %9s %12s %12s %11s %12s | %11s %11s %11s%n", "dirty blocks", "close ms", "0 ms",
                "recent ms", "compact ms", "snapshot ms", "after close", "compacted", "B/block"));
        for (Map.Entry<Integer, List<Measurement>> entry : byCount.entrySet()) {
            Measurement median = median(entry.getValue());
            table.append(String.format(Locale.ROOT, "%,12d %9.1f %12.1f %12.1f %11.1f %12.1f | %11.2f %11.2f %11.2f%n",
                    entry.getKey(), median.closeMillis(), median.openColdMillis(), median.openRecentMillis(), median.compactMillis(),
                    median.openSnapshotMillis(), median.closedBytesPerBlock(), median.compactedBytesPerBlock(), median.zooKeeperBytesPerBlock()));
        }
        table.append(String.format(Locale.ROOT, "Medians of %d repetitions. Close: Flush with release. Open: take the write lease and sync,%n"
                + "until the last entry arrived. B/block: the controller's metadata_bytes; ZooKeeper: its zk_approximate_data_size%n"
                + "growth for the image (paths and data of every znode), after compaction.%n",
                byCount.values().stream().mapToInt(List::size).max().orElse(0)));
        byCount.forEach((count, runs) -> {
            long early = runs.stream().filter(Measurement::compactedBeforeAsked).count();
            if (early > 0) {
                table.append(String.format(Locale.ROOT, "%,d blocks: in %d of %d repetitions the controller had compacted in the background%n"
                        + "  before CompactImage, which then had nothing left to do.%n", count, early, runs.size()));
            }
        });
        List<Measurement> goalRuns = byCount.get(GOAL_CLOSE_BLOCKS);
        if (goalRuns != null) {
            double close = median(goalRuns).closeMillis();
            table.append(String.format(Locale.ROOT, "goal: close with %,d dirty blocks under %.0f ms: %.1f ms, %s%n",
                    GOAL_CLOSE_BLOCKS, GOAL_CLOSE_MILLIS, close, close < GOAL_CLOSE_MILLIS ? "met" : "MISSED"));
        }
        byCount.forEach((count, runs) -> {
            Measurement median = median(runs);
            double worst = Math.max(median.compactedBytesPerBlock(), median.zooKeeperBytesPerBlock());
            table.append(String.format(Locale.ROOT, "goal: at most %.0f bytes per block after compaction, %,d blocks: %.2f, %s%n",
                    GOAL_BYTES_PER_BLOCK, count, worst, worst <= GOAL_BYTES_PER_BLOCK ? "met" : "MISSED"));
        });
        return table.toString();
    }

    void writeCsv(Path file) throws IOException {
        List<String> lines = new ArrayList<>(csv);
        byCount.values().forEach(runs -> lines.add(row("median", median(runs))));
        Files.write(file, lines);
    }

    private static String row(String repetition, Measurement m) {
        return String.format(Locale.ROOT, "%d,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%b", m.blocks(), repetition, m.closeMillis(),
                m.openColdMillis(), m.openRecentMillis(), m.compactMillis(), m.openSnapshotMillis(), m.closedBytesPerBlock(),
                m.compactedBytesPerBlock(), m.zooKeeperBytesPerBlock(), m.compactedBeforeAsked());
    }

    /** Column by column; each column's median may come from a different repetition. */
    private static Measurement median(List<Measurement> runs) {
        return new Measurement(runs.get(0).blocks(), median(runs, Measurement::closeMillis), median(runs, Measurement::openColdMillis),
                median(runs, Measurement::openRecentMillis), median(runs, Measurement::compactMillis), median(runs, Measurement::openSnapshotMillis),
                median(runs, Measurement::closedBytesPerBlock), median(runs, Measurement::compactedBytesPerBlock),
                median(runs, Measurement::zooKeeperBytesPerBlock), runs.stream().anyMatch(Measurement::compactedBeforeAsked));
    }

    private static double median(List<Measurement> runs, ToDoubleFunction<Measurement> column) {
        double[] values = runs.stream().mapToDouble(column).sorted().toArray();
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
