package io.heliotrope.benchmarks.controller;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc.ControllerServiceBlockingStub;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.GetImageRequest;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.session.Controller;
import io.heliotrope.storage.session.GrpcController;
import io.heliotrope.version.Version;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * Close-to-open metadata costs of a running controller, as a site sees them through
 * {@link GrpcController}. For each dirty-block count, on a fresh image each repetition:
 * site A closes a write session that dirtied that many random distinct blocks (one Flush
 * with release); site B opens from metaSeq 0 (the whole log); A opens again from the
 * metaSeq it last saw; the image is compacted and B opens from 0 again (the snapshot).
 * Bytes per block come from GetImage after the close and after compaction, and from
 * ZooKeeper itself.
 * <p>
 * Arguments: {@code --controller HOST:PORT --zookeeper CONNECT --counts 1000,100000,1000000
 * --repetitions 5 --csv FILE}. Start an ensemble and a controller first;
 * {@code benchmarks/controller/run.sh} does it all.
 */
public final class MetadataBenchmark {
    private static final long IMAGE_BYTES = 1L << 40;
    private static final long IMAGE_BLOCKS = IMAGE_BYTES / 4096;
    private static final String SITE_A = "bench-a";
    private static final String SITE_B = "bench-b";
    private static final int WARMUP_BLOCKS = 100_000;

    private final ControllerServiceBlockingStub admin;
    private final Controller siteA;
    private final Controller siteB;
    private final ZooKeeperStats zooKeeper;
    private final Random random = new Random(20170601);
    private int images;

    private MetadataBenchmark(ManagedChannel channel, Arguments arguments) {
        this.admin = ControllerServiceGrpc.newBlockingStub(channel);
        this.siteA = new GrpcController(SITE_A, arguments.controller());
        this.siteB = new GrpcController(SITE_B, arguments.controller());
        this.zooKeeper = new ZooKeeperStats(arguments.zooKeeper());
    }

    public static void main(String[] args) throws IOException {
        Arguments arguments = Arguments.parse(args);
        ManagedChannel channel = Grpc.newChannelBuilder(arguments.controller(), InsecureChannelCredentials.create()).build();
        MetadataBenchmark benchmark = new MetadataBenchmark(channel, arguments);
        try {
            benchmark.siteA.register("127.0.0.1:7410", "127.0.0.1:10809");
            benchmark.siteB.register("127.0.0.1:7411", "127.0.0.1:10810");
            System.err.printf("warm-up: %,d blocks%n", WARMUP_BLOCKS);
            benchmark.run(WARMUP_BLOCKS);
            ResultTable table = new ResultTable();
            for (int count : arguments.counts()) {
                for (int repetition = 1; repetition <= arguments.repetitions(); repetition++) {
                    Measurement measurement = benchmark.run(count);
                    System.err.printf("%,d blocks, repetition %d: %s%n", count, repetition, measurement);
                    table.add(repetition, measurement);
                }
            }
            System.out.print(table.format());
            table.writeCsv(arguments.csv());
            System.out.println("CSV: " + arguments.csv().toAbsolutePath());
        } finally {
            benchmark.siteA.close();
            benchmark.siteB.close();
            channel.shutdownNow();
        }
    }

    /** One repetition on a fresh image, removed afterwards. */
    private Measurement run(int count) {
        String image = "bench-%d-%d-%d".formatted(count, ProcessHandle.current().pid(), ++images);
        long zooKeeperBefore = zooKeeper.dataBytes();
        admin().createImage(CreateImageRequest.newBuilder().setName(image).setSizeBytes(IMAGE_BYTES).build());
        try {
            Controller.Opened opened = siteA.open(image, 0);
            List<BlockVersion> dirty = dirtyBlocks(count, opened.epoch());
            long[] seenByA = new long[1];
            double closeMillis = millis(() -> seenByA[0] = siteA.flush(image, opened.epoch(), dirty, SITE_A, true));
            ImageStatus closed = admin().getImage(GetImageRequest.newBuilder().setName(image).build());

            double openColdMillis = millis(() -> openAndRelease(siteB, SITE_B, image, 0, count));
            double openRecentMillis = millis(() -> openAndRelease(siteA, SITE_A, image, seenByA[0], -1));
            ImageStatus uncompacted = admin().getImage(GetImageRequest.newBuilder().setName(image).build());
            double compactMillis = millis(() -> admin().compactImage(GetImageRequest.newBuilder().setName(image).build()).getMetaSeq());
            ImageStatus compacted = admin().getImage(GetImageRequest.newBuilder().setName(image).build());
            double zooKeeperBytes = zooKeeper.dataBytes() - zooKeeperBefore;
            double openSnapshotMillis = millis(() -> openAndRelease(siteB, SITE_B, image, 0, count));
            return new Measurement(count, closeMillis, openColdMillis, openRecentMillis, compactMillis, openSnapshotMillis,
                    (double) closed.getMetadataBytes() / count, (double) compacted.getMetadataBytes() / count, zooKeeperBytes / count,
                    uncompacted.getSnapshotSeq() == uncompacted.getMetaSeq());
        } finally {
            admin().deleteImage(DeleteImageRequest.newBuilder().setName(image).build());
        }
    }

    /** Opens for write from {@code cachedMetaSeq}, checks how many entries came when {@code expected >= 0}, and gives the lease back. */
    private static long openAndRelease(Controller site, String siteName, String image, long cachedMetaSeq, int expected) {
        Controller.Opened opened = site.open(image, cachedMetaSeq);
        if (expected >= 0 && opened.entries().size() != expected) {
            throw new IllegalStateException("%s: opened from metaSeq %d with %,d entries, expected %,d".formatted(
                    image, cachedMetaSeq, opened.entries().size(), expected));
        }
        return site.flush(image, opened.epoch(), List.of(), siteName, true);
    }

    /**
     * A session's dirty blocks as a site's index lists them: distinct, ascending, one in
     * 100 trimmed. A site numbers its writes with one counter per epoch ({@link Version}),
     * so a block's version is the counter value of its last write: the blocks are written
     * in random order, 1 to 4 times each.
     */
    private List<BlockVersion> dirtyBlocks(int count, long epoch) {
        long[] blocks = LongStream.generate(() -> random.nextLong(IMAGE_BLOCKS)).distinct().limit(count).toArray();
        long[] versions = new long[count];
        long counter = 0;
        for (int i = 0; i < count; i++) {
            counter += 1 + random.nextInt(4);
            versions[i] = Version.compose(epoch, counter);
        }
        Integer[] order = new Integer[count];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingLong(i -> blocks[i]));
        List<BlockVersion> dirty = new ArrayList<>(count);
        for (int i : order) {
            dirty.add(new BlockVersion(blocks[i], versions[i], random.nextInt(100) == 0 ? BlockState.ZERO : BlockState.DATA));
        }
        return dirty;
    }

    private ControllerServiceBlockingStub admin() {
        return admin.withDeadlineAfter(5, TimeUnit.MINUTES);
    }

    private static double millis(LongSupplier call) {
        long start = System.nanoTime();
        call.getAsLong();
        return (System.nanoTime() - start) / 1e6;
    }

    /**
     * What one repetition measured. Bytes per block: the controller's metadata_bytes right
     * after the close and after compaction, and ZooKeeper's own count of what the image
     * added (every znode of it: config, lease, snapshot, log). The controller compacts in
     * the background once its log has grown; {@code compactedBeforeAsked} says it had done
     * so before CompactImage was called, which then had nothing left to do.
     */
    record Measurement(int blocks, double closeMillis, double openColdMillis, double openRecentMillis, double compactMillis,
                       double openSnapshotMillis, double closedBytesPerBlock, double compactedBytesPerBlock, double zooKeeperBytesPerBlock,
                       boolean compactedBeforeAsked) {
        @Override
        public String toString() {
            return "close %.0f ms, open from 0 %.0f ms, open from recent %.0f ms, compact %.0f ms, open snapshot %.0f ms, %.2f -> %.2f B/block (ZooKeeper %.2f)%s"
                    .formatted(closeMillis, openColdMillis, openRecentMillis, compactMillis, openSnapshotMillis, closedBytesPerBlock,
                            compactedBytesPerBlock, zooKeeperBytesPerBlock, compactedBeforeAsked ? ", compacted in the background before CompactImage" : "");
        }
    }

    private record Arguments(String controller, String zooKeeper, List<Integer> counts, int repetitions, Path csv) {
        static Arguments parse(String[] args) {
            if (args.length % 2 != 0) {
                throw new IllegalArgumentException("option " + args[args.length - 1] + " has no value");
            }
            String controller = "127.0.0.1:7400";
            String zooKeeper = "127.0.0.1:2181";
            List<Integer> counts = List.of(1_000, 100_000, 1_000_000);
            int repetitions = 5;
            Path csv = Path.of("controller-metadata.csv");
            for (int i = 0; i < args.length; i += 2) {
                String value = args[i + 1];
                switch (args[i]) {
                    case "--controller" -> controller = value;
                    case "--zookeeper" -> zooKeeper = value;
                    case "--counts" -> counts = Stream.of(value.split(",")).map(String::strip).map(Integer::parseInt).toList();
                    case "--repetitions" -> repetitions = Integer.parseInt(value);
                    case "--csv" -> csv = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Arguments(controller, zooKeeper, counts, repetitions, csv);
        }
    }
}
