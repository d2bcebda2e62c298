package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static io.heliotrope.it.SiteCloseToOpenIT.blocksAt;
import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ZooKeeper's quorum lost (two nodes of three killed) under a site that writes: opens and
 * creates fail at once naming ZooKeeper, {@code helio status} says it is ZooKeeper that is
 * down, and the image open for write is served while its lease lasts, then holds its I/O. A
 * quorum back within the hold: nothing failed, every block verifies. Back after it: I/O failed
 * meanwhile, and what was acknowledged before is still committed once the quorum is back.
 */
class QuorumLossIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    /** A short lease: the outage outlasts it, so the site must hold its I/O rather than serve it. */
    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(2, "--lease-ttl", "6s");

    @Test
    void aQuorumBackWithinTheHoldFailsNoWrite() throws Exception {
        String controllers = controllers();
        try (TestingSite site = TestingSite.start("--site", "site-a", "--controller", controllers, "--checkpoint-interval", "1s",
                "--lease-hold", "60s")) {
            helio("image", "create", "held", "--size", "64M", "--mode", "on-demand", "--controller", controllers).assertSuccess();
            VerifiedWrites writes = new VerifiedWrites(site.nbdUri("held"), "60m", "4m");
            try (ChildProcess fio = writes.start()) {
                long metaSeq = awaitCheckpoint("held");
                loseQuorum();
                Await.until("the site holds its I/O", TIMEOUT, () -> site.log().contains("held: holding reads and writes"));
                assertStatusSaysZooKeeperIsDown(controllers);
                assertThat(fio.isAlive()).as("fio waits; its output:%n%s", fio.output()).isTrue();
                restoreQuorum();
                Await.until("the site serves the held I/O", TIMEOUT, () -> site.log().contains("held: lease renewed"));
                Await.until("a checkpoint after the outage", TIMEOUT, () -> cluster.client(1).status("held").getMetaSeq() > metaSeq);
                System.out.printf("QuorumLossIT: a quorum lost for less than the hold; what the client saw (fio):%n%s%n",
                        VerifiedWrites.awaitSuccess(fio, Duration.ofMinutes(2)));
            }
            writes.verifyAgain();
            assertThat(site.log()).as("site log").doesNotContain("fenced").doesNotContain("orphaned").doesNotContain("fail (EIO)");
        }
    }

    @Test
    void aQuorumBackAfterTheHoldLosesNothingAcknowledged() throws Exception {
        String controllers = controllers();
        try (TestingSite a = TestingSite.start("--site", "site-a", "--controller", controllers, "--checkpoint-interval", "1h", "--lease-hold", "2s");
                TestingSite b = TestingSite.start("--site", "site-b", "--controller", controllers)) {
            helio("image", "create", "acked", "--size", "8M", "--controller", controllers).assertSuccess();
            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("qemu-io", "-f", "raw",
                    "-c", "write -P 0x5a 0 1m", "-c", "flush", "-c", "sleep 600000", a.nbdUri("acked")))) {
                Await.until("the write landed at site-a", TIMEOUT, () -> a.image("show", "acked").stdout().contains("data blocks: 256 "));
                loseQuorum();
                Await.until("site-a's hold ran out", TIMEOUT, () -> a.log().contains("acked: no renewal reached a controller within the hold"));
                Tools.Result late = Tools.run("qemu-io", "-f", "raw", "-c", "write -P 0x77 1m 4k", a.nbdUri("acked"));
                assertThat(late.stdout() + late.stderr()).as("a write after the hold").contains("Input/output error");
                assertThat(writer.isAlive()).as("the first client still holds the image open; its output:%n%s", writer.output()).isTrue();
            }
            restoreQuorum();
            Await.until("site-a's acknowledged blocks are committed", TIMEOUT,
                    () -> blocksAt(cluster.client(1).status("acked"), "site-a") == 256);
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 1m", "-c", "read -P 0 1m 4k", b.nbdUri("acked"));
            assertThat(a.log()).as("site-a log").doesNotContain("orphaned");
        }
    }

    private static String controllers() {
        return String.join(",", IntStream.range(0, 2).mapToObj(i -> cluster.controller(i).target()).toList());
    }

    /** Waits for a checkpoint of the writes; returns the metaSeq it committed. */
    private static long awaitCheckpoint(String image) {
        ControllerClient controller = cluster.client(0);
        long before = controller.status(image).getMetaSeq();
        Await.until("a checkpoint of the writes after metaSeq " + before, TIMEOUT, () -> controller.status(image).getMetaSeq() > before);
        return controller.status(image).getMetaSeq();
    }

    /** Two nodes of three killed: the third serves nobody, and every controller loses its connection. */
    private static void loseQuorum() {
        cluster.ensemble().kill9(1);
        cluster.ensemble().kill9(2);
    }

    private static void restoreQuorum() {
        cluster.ensemble().restart(1);
        cluster.ensemble().restart(2);
    }

    /** {@code helio status} names ZooKeeper as the part that is down, and opens and creates fail at once, naming it too. */
    private static void assertStatusSaysZooKeeperIsDown(String controllers) {
        Await.until("helio status says ZooKeeper is down", TIMEOUT,
                () -> helio("status", "--controller", controllers).stdout().contains("zookeeper: DOWN"));
        Tools.Result status = helio("status", "--controller", controllers);
        assertThat(status.stdout()).contains("up, but ZooKeeper is out of its reach").contains("site-a");
        long start = System.nanoTime();
        Tools.Result create = helio("image", "create", "during-the-outage", "--size", "1M", "--controller", controllers);
        assertThat(create.exitCode()).as("helio image create during the outage").isNotZero();
        assertThat(create.stderr()).contains("ZooKeeper at ").contains("has lost its quorum");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("how long the create took to fail").isLessThan(Duration.ofSeconds(10));
    }
}
