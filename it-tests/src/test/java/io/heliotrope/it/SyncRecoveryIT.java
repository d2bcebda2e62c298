package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static io.heliotrope.it.SiteCloseToOpenIT.blocksAt;
import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code sync} mode's promise: the writer site is killed right after its writes were
 * acknowledged, before it flushed any of them, and the other site, which took the sync
 * copies, reads every one of them once the writer's lease expired.
 */
class SyncRecoveryIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "3s");

    @Test
    void killingTheWriterSiteLosesNoAcknowledgedWrite() throws Exception {
        String target = cluster.controller(0).target();
        // b first: a lists the sites it may copy to when it joins.
        try (TestingSite b = TestingSite.start("--site", "site-b", "--controller", target);
                TestingSite a = TestingSite.start("--site", "site-a", "--controller", target, "--checkpoint-interval", "1h",
                        "--checkpoint-blocks", "1000000")) {
            helio("image", "create", "critical", "--size", "64M", "--mode", "sync", "--controller", target).assertSuccess();
            // qemu-io keeps the image open after the write, so that site-a never gets to flush it at a close; its output
            // is line-buffered, so that it tells of the acknowledgement at once.
            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("stdbuf", "-oL", "qemu-io", "-f", "raw",
                    "-c", "write -P 0x5a 0 4M", "-c", "sleep 600000", a.nbdUri("critical")))) {
                try {
                    Await.until("the write was acknowledged", TIMEOUT, () -> writer.output().contains("wrote 4194304/4194304 bytes"));
                } catch (AssertionError e) {
                    // Seen once in eight runs: keep what both sides said for the next look.
                    throw new AssertionError(e.getMessage() + "%nqemu-io:%n%s%nsite-a:%n%s%nsite-b:%n%s".formatted(writer.output(), a.log(), b.log()), e);
                }
                a.kill9();
            }
            ControllerClient controller = cluster.client(0);
            assertThat(controller.status("critical").getMetaSeq()).as("site-a flushed nothing").isZero();

            // site-b's open waits for site-a's lease to expire, as long as its open wait; the retries cover a slow machine.
            Await.until("site-b read every acknowledged byte", TIMEOUT, () -> {
                Tools.Result read = run("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 4M", b.nbdUri("critical"));
                return read.exitCode() == 0 && !read.stdout().contains("Pattern verification failed") && read.stdout().contains("read 4194304/4194304 bytes");
            });
            assertThat(blocksAt(controller.status("critical"), "site-b")).isEqualTo(1024);
            assertThat(controller.status("critical").getLease().getRecovery().getSyncSitesCount()).isZero();
            assertThat(b.log()).contains("critical: recovered 1024 blocks of the dead holding of [site-a]");
        }
    }
}
