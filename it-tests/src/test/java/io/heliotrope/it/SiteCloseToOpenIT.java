package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two {@code helio serve} sites on one controller and a real 3-node ensemble:
 * close-to-open end to end, and a killed site that flushes when it comes back.
 */
class SiteCloseToOpenIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "60s");

    private static TestingSite site(String name, String... options) {
        List<String> args = new java.util.ArrayList<>(List.of("--site", name, "--controller", cluster.controller(0).target()));
        args.addAll(List.of(options));
        return TestingSite.start(args.toArray(String[]::new));
    }

    private static void createImage(String name, String size, String... options) {
        List<String> args = new ArrayList<>(List.of("image", "create", name, "--size", size, "--controller", cluster.controller(0).target()));
        args.addAll(List.of(options));
        helio(args.toArray(String[]::new)).assertSuccess();
    }

    private static void awaitReleased(ControllerClient controller, long epoch) {
        Await.until("the lease of epoch " + epoch + " released", TIMEOUT, () -> {
            ImageStatus status = controller.status("shared");
            return status.getLease().getHolder().isEmpty() && status.getLease().getEpoch() == epoch;
        });
    }

    static long blocksAt(ImageStatus status, String site) {
        return status.getCurrentBlocksList().stream().filter(blocks -> blocks.getSite().equals(site)).mapToLong(SiteBlocks::getBlocks).sum();
    }

    @Test
    void aSecondSiteKnowsEveryBlockTheFirstWroteAndWhereItIs() throws Exception {
        try (TestingSite a = site("site-a"); TestingSite b = site("site-b")) {
            // Not pulled: site-b must still lack what it did not read, for its stale set to show where that is.
            createImage("shared", "16M", "--pull", "off");
            ok("qemu-io", "-f", "raw", "-c", "write -P 0x5a 0 1M", "-c", "write -P 0x33 8M 4k", "-c", "write -P 0x01 12M 8k", "-c", "write -z 12M 8k", a.nbdUri("shared"));

            ControllerClient controller = cluster.client(0);
            Await.until("site-a's close reached the controller", TIMEOUT,
                    () -> controller.status("shared").getLease().getHolder().isEmpty() && controller.status("shared").getMetaSeq() > 0);
            ImageStatus status = controller.status("shared");
            assertThat(blocksAt(status, "site-a")).isEqualTo(257);
            assertThat(status.getZeroBlocks()).isEqualTo(2);

            // Block 0 is current only at site-a: site-b fetches it, and holds it current from then on.
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 4k", b.nbdUri("shared"));
            // A connection that comes before the site has seen the last one go joins its session: wait, so each is a session of its own.
            awaitReleased(controller, 2);
            ok("qemu-io", "-f", "raw", "-c", "read -P 0 4M 4k", "-c", "read -P 0 12M 8k", b.nbdUri("shared"));
            awaitReleased(controller, 3);

            String show = b.image("show", "shared").assertSuccess().stdout();
            assertThat(show).contains("view:        metaSeq " + controller.status("shared").getMetaSeq(),
                    "stale:       256 blocks current at site site-a");

            ok("qemu-io", "-f", "raw", "-c", "write -P 0x77 0 4k", b.nbdUri("shared"));
            Await.until("site-b's close reached the controller", TIMEOUT, () -> blocksAt(controller.status("shared"), "site-b") == 1);
            assertThat(blocksAt(controller.status("shared"), "site-a")).isEqualTo(256);
            assertThat(helio("image", "show", "shared", "--controller", cluster.controller(0).target()).assertSuccess().stdout())
                    .contains("mode:        proactive (K 1000, S 1)", "lease:       none (last epoch 4)")
                    .containsPattern("\\n  site-a +256 ").containsPattern("\\n  site-b +1 ");
        }
    }

    @Test
    void imagesAreCreatedInTheControllersCatalogWithTheirMode() {
        String target = cluster.controller(0).target();
        helio("image", "create", "lazy", "--size", "4M", "--mode", "on-demand", "--controller", target).assertSuccess();
        assertThat(helio("image", "ls", "--controller", target).assertSuccess().stdout()).containsPattern("lazy +4\\.0 MiB +on-demand ");
        assertThat(helio("image", "rm", "lazy", "--controller", target).assertSuccess().stdout()).isEqualTo("removed lazy\n");
    }

    @Test
    void anImageRemovedAndCreatedAgainReadsAsZerosAndARemovedOnesCopyIsReclaimed() throws Exception {
        try (TestingSite a = site("site-d")) {
            String target = cluster.controller(0).target();
            createImage("reborn", "8M");
            ok("qemu-io", "-f", "raw", "-c", "write -P 0x42 0 64k", a.nbdUri("reborn"));
            ControllerClient controller = cluster.client(0);
            Await.until("site-d's close reached the controller", TIMEOUT, () -> blocksAt(controller.status("reborn"), "site-d") == 16
                    && controller.status("reborn").getLease().getHolder().isEmpty());
            helio("image", "rm", "reborn", "--controller", target).assertSuccess();
            createImage("reborn", "8M");

            ok("qemu-io", "-f", "raw", "-c", "read -P 0 0 64k", a.nbdUri("reborn"));
            assertThat(a.log()).contains("reborn: local copy of image ");
            Await.until("site-d released the new image", TIMEOUT, () -> controller.status("reborn").getLease().getHolder().isEmpty());
            helio("image", "rm", "reborn", "--controller", target).assertSuccess();
            Await.until("site-d reclaimed its copy of the removed image", TIMEOUT,
                    () -> a.image("show", "reborn").stderr().contains("image 'reborn' does not exist"));
        }
    }

    @Test
    void aSiteKilledWithUnflushedBlocksFlushesThemWhenItComesBack() throws Exception {
        try (TestingSite a = site("site-c", "--checkpoint-interval", "1h")) {
            createImage("crash", "8M");
            ControllerClient controller = cluster.client(0);
            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("qemu-io", "-f", "raw",
                    "-c", "write -P 0x11 0 64k", "-c", "flush", "-c", "sleep 600000", a.nbdUri("crash")))) {
                Await.until("the write landed at site-c", TIMEOUT, () -> a.image("show", "crash").stdout().contains("data blocks: 16 "));
                assertThat(writer.isAlive()).as("qemu-io still holds the image open; output:%n%s", writer.output()).isTrue();
                assertThat(controller.status("crash").getLease().getHolder()).isEqualTo("site-c");
                a.kill9();
            }
            assertThat(controller.status("crash").getMetaSeq()).isZero();

            a.restart();
            Await.until("site-c flushed what it had left", TIMEOUT, () -> blocksAt(controller.status("crash"), "site-c") == 16);
            assertThat(controller.status("crash").getLease().getHolder()).isEmpty();
            assertThat(a.log()).contains("crash: flushed 16 blocks left over from epoch");
            ok("qemu-io", "-f", "raw", "-c", "read -P 0x11 0 64k", a.nbdUri("crash"));
        }
    }
}
