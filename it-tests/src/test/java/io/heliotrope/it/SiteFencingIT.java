package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static io.heliotrope.it.SiteCloseToOpenIT.blocksAt;
import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/** A site that was fenced while it was down: its unflushed blocks are orphaned, never served. */
class SiteFencingIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "2s");

    @Test
    void aSiteFencedWhileDownOrphansWhatItHadNotFlushed() throws Exception {
        String target = cluster.controller(0).target();
        try (TestingSite a = TestingSite.start("--site", "site-a", "--controller", target, "--checkpoint-interval", "1h");
                TestingSite b = TestingSite.start("--site", "site-b", "--controller", target)) {
            helio("image", "create", "fenced", "--size", "8M", "--controller", target).assertSuccess();
            ControllerClient controller = cluster.client(0);
            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("qemu-io", "-f", "raw",
                    "-c", "write -P 0x11 0 64k", "-c", "flush", "-c", "sleep 600000", a.nbdUri("fenced")))) {
                Await.until("the write landed at site-a", TIMEOUT, () -> a.image("show", "fenced").stdout().contains("data blocks: 16 "));
                assertThat(writer.isAlive()).as("qemu-io still holds the image open; output:%n%s", writer.output()).isTrue();
                a.kill9();
            }
            Await.until("site-a's lease expired", TIMEOUT,
                    () -> controller.status("fenced").getLease().getExpiresEpochMillis() < System.currentTimeMillis());
            ok("qemu-io", "-f", "raw", "-c", "write -P 0x22 0 4k", b.nbdUri("fenced"));
            Await.until("site-b's write was committed", TIMEOUT, () -> blocksAt(controller.status("fenced"), "site-b") == 1);

            a.restart();
            Await.until("site-a reported its orphans", TIMEOUT, () -> a.metrics().contains("heliotrope_view_orphaned_blocks 16.0"));
            assertThat(a.log()).contains("fenced: 16 blocks written here were never committed and are orphaned");
            assertThat(blocksAt(controller.status("fenced"), "site-a")).isZero();

            ok("qemu-io", "-f", "raw", "-c", "read -P 0 4k 60k", a.nbdUri("fenced"));
            // Block 0's committed version is site-b's: site-a fetches it rather than serve its orphan.
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x22 0 4k", a.nbdUri("fenced"));
        }
    }
}
