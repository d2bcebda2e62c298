package io.heliotrope.it;

import io.heliotrope.wan.LinkConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The background pull (DESIGN.md section 4): a site that opens an image for write after
 * another site wrote it brings what it lacks here while its client reads, each block once,
 * and from then on serves every read locally; the pull stops with its session.
 */
class BackgroundPullIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** 64 MiB of random blocks of a 256 MiB image. */
    private static final int WORKING_SET = 16_384;
    private static final long WORKING_SET_BYTES = (long) WORKING_SET * 4096;
    /** Slow enough (64 MiB in 5.4 s) that the client's first reads run while the pull does. */
    private static final LinkConfig WAN = LinkConfig.parse("75ms", "100mbit");

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "30s");

    private static String controller() {
        return cluster.controller(0).target();
    }

    /** Waits until no site holds the image: the last writer's final flush reached the controller. */
    private static void awaitClosed(String image) {
        ControllerClient client = cluster.client(0);
        Await.until(image + " closed everywhere", TIMEOUT, () -> client.status(image).getLease().getHolder().isEmpty());
    }

    @Test
    void aMovedImageIsPulledWhileItsClientReadsEachBlockOnceAndThenEveryReadIsLocal() {
        try (WanSites sites = new WanSites(controller(), WAN, List.of("a", "b"))) {
            TestingSite a = sites.site("a");
            TestingSite b = sites.site("b");
            // Defaults: proactive, no transition hint, pulled.
            helio("image", "create", "pulled", "--size", "256M", "--controller", controller()).assertSuccess();
            ok("/usr/bin/python3", "-c", WRITE_WORKING_SET, a.nbdUri("pulled"), Integer.toString(WORKING_SET));
            awaitClosed("pulled");

            try (ChildProcess reader = ChildProcess.start("reader at b", List.of("/usr/bin/python3", "-c", READ_WORKING_SET, b.nbdUri("pulled"),
                    Integer.toString(WORKING_SET)))) {
                reader.awaitOutput(Pattern.compile("pass 1 done"), TIMEOUT);
                Await.until("b's pull settled", TIMEOUT, () -> b.metric("heliotrope_pull_elsewhere_blocks") == 0
                        && b.metric("heliotrope_pull_running") == 0);

                String map = ok("nbdinfo", "--map=heliotrope:locality", b.nbdUri("pulled")).stdout();
                assertThat(map.lines().map(line -> line.strip().split("\\s+")[2]).distinct())
                        .as("every block here (0) or reading as zeros (2):%n%s", map).containsAnyOf("0", "2").doesNotContain("1");
                double fetchedReads = b.metric("heliotrope_view_read_blocks_total{source=\"fetched\"}");
                reader.closeStdin();
                reader.awaitOutput(Pattern.compile("pass 2 done"), TIMEOUT);
                assertThat(b.metric("heliotrope_view_read_blocks_total{source=\"fetched\"}")).as("reads that waited for a fetch after the pull")
                        .isEqualTo(fetchedReads);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + sites.logs(), e);
            }

            // Nothing fetched twice: the blocks written at a were never read there, so none was pushable, and every block
            // b lacked crossed the WAN once, by a client's fetch or by the pull.
            assertThat(a.metricOrZero("heliotrope_propagation_pushed_blocks_total{destination=\"b\"}")).as("pushed by a").isZero();
            assertThat(b.metric("heliotrope_peer_fetch_blocks_total{outcome=\"found\",peer=\"a\"}")).as("blocks fetched from a")
                    .isEqualTo(WORKING_SET);
            assertThat(b.metric("heliotrope_peer_fetch_blocks_total{outcome=\"not_here\",peer=\"a\"}")).isZero();
            assertThat(b.metricOrZero("heliotrope_peer_fetch_redundant_blocks_total{peer=\"a\"}")).as("copies that were here already").isZero();
            assertThat(b.metric("heliotrope_pull_blocks_total{peer=\"a\"}")).as("the pull's share").isPositive();
            assertThat(sites.link("b", "a").backwardBytes()).as("WAN bytes from a to b").isLessThanOrEqualTo((long) (1.05 * WORKING_SET_BYTES));
        }
    }

    @Test
    void aPullStopsWithItsSession() {
        // 64 MiB take 67 s at 8 Mbit/s: the pull is far from done when its session ends.
        try (WanSites sites = new WanSites(controller(), LinkConfig.parse("75ms", "8mbit"), List.of("a", "b"))) {
            helio("image", "create", "stopped", "--size", "64M", "--controller", controller()).assertSuccess();
            ok("nbdcopy", "--", "[", "nbdkit", "--exit-with-parent", "pattern", "size=64M", "]", sites.site("a").nbdUri("stopped"));
            awaitClosed("stopped");
            TestingSite b = sites.site("b");
            double window;
            try (ChildProcess client = ChildProcess.start("client at b", List.of("/usr/bin/python3", "-c", OPEN_UNTIL_INPUT_ENDS, b.nbdUri("stopped")))) {
                client.awaitOutput(Pattern.compile("open"), TIMEOUT);
                Await.until("b pulling", TIMEOUT, () -> b.metricOrZero("heliotrope_pull_bytes_total{peer=\"a\"}") > 0);
                window = b.metric("heliotrope_pull_window_bytes{peer=\"a\"}");
                client.closeStdin();
                awaitClosed("stopped");
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + sites.logs(), e);
            }
            assertThat(b.metric("heliotrope_pull_running")).isZero();
            long atClose = sites.link("b", "a").backwardBytes();
            // What was in flight may still land: one window (it may have doubled once more in slow start), nothing more is asked.
            long inFlight = (long) (2 * window) + (256 << 10);
            assertThat(Await.within(Duration.ofSeconds(3), () -> sites.link("b", "a").backwardBytes() > atClose + inFlight))
                    .as("bytes from a after the close: %d then more than %d", atClose, inFlight).isFalse();
            assertThat(atClose).as("bytes from a: the pull did not run to its end").isLessThan(32L << 20);
        }
    }

    /** Opens the image, reads its first block, prints "open" and keeps the connection until its input ends. */
    private static final String OPEN_UNTIL_INPUT_ENDS = """
            import nbd, sys
            h = nbd.NBD()
            h.connect_uri(sys.argv[1])
            h.pread(4096, 0)
            print('open', flush=True)
            sys.stdin.read()
            h.shutdown()
            """;

    /**
     * Writes WORKING_SET distinct random blocks of the image, each filled with its block number
     * and the seed, 32 writes in flight.
     */
    private static final String WRITE_WORKING_SET = """
            import nbd, random, struct, sys
            h = nbd.NBD()
            h.connect_uri(sys.argv[1])
            blocks = random.Random(29).sample(range(h.get_size() // 4096), int(sys.argv[2]))
            for block in blocks:
                while h.aio_in_flight() >= 32:
                    h.poll(-1)
                h.aio_pwrite(struct.pack('<QQ', block, 29) * 256, block * 4096)
            while h.aio_in_flight() > 0:
                h.poll(-1)
            h.flush()
            h.shutdown()
            """;

    /**
     * On one connection: 4096 random reads of the working set, 8 in flight, each checked; then
     * waits for its input to end and does it again.
     */
    private static final String READ_WORKING_SET = """
            import nbd, random, struct, sys
            h = nbd.NBD()
            h.connect_uri(sys.argv[1])
            blocks = random.Random(29).sample(range(h.get_size() // 4096), int(sys.argv[2]))
            wrong = []
            def check(block, buffer, error):
                if buffer.to_bytearray() != struct.pack('<QQ', block, 29) * 256:
                    wrong.append(block)
                return 1
            def read_pass(seed):
                for block in random.Random(seed).choices(blocks, k=4096):
                    while h.aio_in_flight() >= 8:
                        h.poll(-1)
                    buffer = nbd.Buffer(4096)
                    h.aio_pread(buffer, block * 4096, completion=lambda error, block=block, buffer=buffer: check(block, buffer, error))
                while h.aio_in_flight() > 0:
                    h.poll(-1)
                if wrong:
                    sys.exit('blocks read back wrong: %s' % wrong[:10])
            read_pass(1)
            print('pass 1 done', flush=True)
            sys.stdin.read()
            read_pass(2)
            print('pass 2 done', flush=True)
            h.shutdown()
            """;
}
