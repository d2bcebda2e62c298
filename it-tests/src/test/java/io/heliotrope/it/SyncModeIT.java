package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code sync} image is used the moment its sites register: the writer's session opened
 * while the registry listed no other site, and its first write is copied to the site that
 * registered since, which then holds every block alone.
 */
class SyncModeIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    @Test
    void aSyncImageOpenedBeforeTheOtherSiteRegisteredCopiesToItFromTheFirstWrite() throws Exception {
        String target = cluster.controller(0).target();
        ControllerClient controller = cluster.client(0);
        try (TestingSite a = TestingSite.start("--site", "site-a", "--controller", target)) {
            helio("image", "create", "early", "--size", "64M", "--mode", "sync", "--controller", target).assertSuccess();
            // nbdsh opens the image at site-a now, when no other site is registered, and writes once its input ends.
            try (ChildProcess writer = ChildProcess.start("nbdsh", List.of("nbdsh", "-u", a.nbdUri("early"), "-c", "import sys", "-c", "sys.stdin.read()",
                    "-c", "h.pwrite(b'\\x5a' * (4 << 20), 0)", "-c", "h.flush()", "-c", "print('written')"))) {
                Await.until("site-a opened the image", TIMEOUT, () -> a.log().contains("early: write lease at site site-a"));
                try (TestingSite b = TestingSite.start("--site", "site-b", "--controller", target)) {
                    writer.closeStdin();
                    writer.awaitOutput(Pattern.compile("written"), TIMEOUT);
                    assertThat(a.log()).contains("early: sync copies go to sites [site-b]").doesNotContain("did not reach site");

                    Await.until("site-a closed the image", TIMEOUT, () -> controller.status("early").getLease().getHolder().isEmpty());
                    a.kill9();
                    // Every block is read from site-b's own copies: site-a, the holder, is gone.
                    Tools.Result read = run("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 4M", b.nbdUri("early"));
                    assertThat(read.exitCode()).as("%s", read).isZero();
                    assertThat(read.stdout()).contains("read 4194304/4194304 bytes").doesNotContain("Pattern verification failed");
                }
            }
        }
    }
}
