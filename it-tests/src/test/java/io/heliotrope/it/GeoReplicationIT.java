package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.SiteBlocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sites behind an emulated WAN with a 75 ms round trip (DESIGN.md sections 5 and 6): what
 * one site wrote, another reads byte for byte after the image moves, in every mode, along
 * a chain of moves, and through a holder that dies mid-fetch; what a site away from a
 * remote image's home writes is stored at the home only.
 */
class GeoReplicationIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "30s");

    private static String controller() {
        return cluster.controller(0).target();
    }

    private static void createImage(String name, String size, String mode) {
        helio("image", "create", name, "--size", size, "--mode", mode, "--home", "a", "--s", "0",
                "--transitions", "a:b=1.0,b:c=0.5,b:a=0.5,c:a=1.0", "--controller", controller()).assertSuccess();
    }

    /** Waits until no site holds the image: the last writer's final flush reached the controller. */
    private static void awaitClosed(String image) {
        ControllerClient client = cluster.client(0);
        Await.until(image + " closed everywhere", TIMEOUT, () -> client.status(image).getLease().getHolder().isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"on-demand", "proactive", "sync", "remote"})
    void whatOneSiteWroteAnotherReadsByteForByteAfterTheMove(String mode, @TempDir Path dir) throws Exception {
        try (WanSites sites = new WanSites(controller(), WanSites.WAN_75MS, List.of("a", "b"))) {
            String image = "moved-" + mode;
            createImage(image, "256M", mode);
            Path written = TestData.randomFile(dir.resolve("written"), 256 << 20);

            Path read = dir.resolve("read");
            try {
                ok("nbdcopy", written.toString(), sites.site("a").nbdUri(image));
                awaitClosed(image);
                ok("nbdcopy", sites.site("b").nbdUri(image), read.toString());
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + sites.logs(), e);
            }

            assertThat(Tools.sha256(read)).as("what b read").isEqualTo(Tools.sha256(written));
            assertThat(sites.link("b", "a").backwardBytes()).as("bytes from a to b").isGreaterThan(0);
            if (mode.equals("sync")) {
                assertThat(sites.link("a", "b").forwardBytes()).as("sync copies pushed to b").isGreaterThanOrEqualTo(256L << 20);
            }
        }
    }

    @Test
    void aRemoteImageWrittenAwayFromItsHomeIsStoredAtTheHomeOnlyAndReadBackEverywhere(@TempDir Path dir) throws Exception {
        try (WanSites sites = new WanSites(controller(), WanSites.WAN_75MS, List.of("a", "b", "c"))) {
            String image = "remote-from-b";
            createImage(image, "32M", "remote");
            Path written = TestData.randomFile(dir.resolve("written"), 32 << 20);

            ok("nbdcopy", written.toString(), sites.site("b").nbdUri(image));
            awaitClosed(image);

            assertThat(cluster.client(0).status(image).getCurrentBlocksList()).as("committed blocks by holder")
                    .containsExactly(SiteBlocks.newBuilder().setSite("a").setBlocks(8192).build());
            assertThat(sites.site("b").image("show", image).assertSuccess().stdout()).as("b's copy").contains("data blocks: 0 ");
            for (String reader : List.of("a", "c")) {
                Path read = dir.resolve("read-at-" + reader);
                ok("nbdcopy", sites.site(reader).nbdUri(image), read.toString());
                awaitClosed(image);
                assertThat(Tools.sha256(read)).as("what %s read", reader).isEqualTo(Tools.sha256(written));
            }
            assertThat(sites.site("c").image("show", image).assertSuccess().stdout()).as("c's copy").contains("data blocks: 0 ");
        }
    }

    @Test
    void aChainOfMovesWithWritesAtEachStopEndsWithEveryWrite(@TempDir Path dir) throws Exception {
        try (WanSites sites = new WanSites(controller(), WanSites.WAN_75MS, List.of("a", "b", "c"))) {
            createImage("chain", "16M", "proactive");
            write(sites.site("a"), "chain", 0x11, "0", "8M");
            write(sites.site("b"), "chain", 0x22, "4M", "4M");
            write(sites.site("c"), "chain", 0x33, "6M", "6M");
            write(sites.site("a"), "chain", 0x44, "10M", "1M");

            byte[] expected = new byte[16 << 20];
            fill(expected, 0x11, 0, 8);
            fill(expected, 0x22, 4, 4);
            fill(expected, 0x33, 6, 6);
            fill(expected, 0x44, 10, 1);
            Path read = dir.resolve("chain");
            ok("nbdcopy", sites.site("b").nbdUri("chain"), read.toString());
            assertThat(Files.readAllBytes(read)).isEqualTo(expected);
        }
    }

    @Test
    void aHolderThatDiesMidFetchFailsTheReadWithinTheTimeoutAndAReadAfterItsRestartSucceeds(@TempDir Path dir) throws Exception {
        try (WanSites sites = new WanSites(controller(), WanSites.WAN_75MS, List.of("a", "b"), "--fetch-timeout", "5s")) {
            createImage("holder", "256M", "on-demand");
            Path written = TestData.randomFile(dir.resolve("written"), 256 << 20);
            ok("nbdcopy", written.toString(), sites.site("a").nbdUri("holder"));
            awaitClosed("holder");
            // 8 Mbit/s: the whole image would take minutes, so the holder dies with most of it still to come.
            sites.link("b", "a").setConfig(WanSites.WAN_75MS.withBandwidth(8_000_000));

            try (ChildProcess reader = ChildProcess.start("nbdcopy", List.of("nbdcopy", sites.site("b").nbdUri("holder"), dir.resolve("partial").toString()))) {
                Await.until("b started fetching from a", TIMEOUT, () -> sites.site("b").metric("heliotrope_view_read_blocks_total{source=\"fetched\"}") > 0);
                long killedAt = System.nanoTime();
                sites.site("a").kill9();
                Await.until("the read failed", Duration.ofSeconds(30), () -> !reader.isAlive());
                assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).as("EIO within the fetch timeout").isLessThan(Duration.ofSeconds(20));
                assertThat(reader.exitCode()).as(reader.output()).isNotZero();
                assertThat(reader.output()).containsIgnoringCase("input/output error");
            }

            sites.link("b", "a").setConfig(WanSites.WAN_75MS);
            sites.site("a").restart();
            awaitClosed("holder");
            Path read = dir.resolve("read");
            ok("nbdcopy", sites.site("b").nbdUri("holder"), read.toString());
            assertThat(Tools.sha256(read)).isEqualTo(Tools.sha256(written));
        }
    }

    @Test
    void ofThirtyTwoWritesInFlightToOneBlockTheLastAcknowledgedIsWhatEverySiteReads() throws Exception {
        try (WanSites sites = new WanSites(controller(), WanSites.WAN_75MS, List.of("a", "b"))) {
            createImage("racing", "4M", "proactive");
            String last = ok("/usr/bin/python3", "-c", RACING_WRITES, sites.site("a").nbdUri("racing")).stdout().strip();
            awaitClosed("racing");

            String pattern = "0x" + last;
            ok("qemu-io", "-f", "raw", "-c", "read -P " + pattern + " 0 4k", sites.site("b").nbdUri("racing"));
            awaitClosed("racing");
            ok("qemu-io", "-f", "raw", "-c", "read -P " + pattern + " 0 4k", sites.site("a").nbdUri("racing"));
        }
    }

    /**
     * Sends 32 writes of block 0, each filled with its own byte, all in flight at once, and
     * prints the fill of the one acknowledged last (in hex).
     */
    private static final String RACING_WRITES = """
            import nbd, sys
            h = nbd.NBD()
            h.connect_uri(sys.argv[1])
            order = []
            def done(fill, error):
                order.append(fill)
                return 1
            for fill in range(1, 33):
                h.aio_pwrite(bytearray([fill]) * 4096, 0, completion=lambda error, fill=fill: done(fill, error))
            while len(order) < 32:
                h.poll(-1)
            h.flush()
            h.shutdown()
            print('%02x' % order[-1])
            """;

    private static void write(TestingSite site, String image, int fill, String offset, String length) {
        ok("qemu-io", "-f", "raw", "-c", "write -P " + fill + " " + offset + " " + length, site.nbdUri(image));
        awaitClosed(image);
    }

    private static void fill(byte[] image, int value, int fromMiB, int lengthMiB) {
        Arrays.fill(image, fromMiB << 20, (fromMiB + lengthMiB) << 20, (byte) value);
    }
}
