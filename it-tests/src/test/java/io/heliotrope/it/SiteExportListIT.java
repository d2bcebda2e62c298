package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static io.heliotrope.it.Tools.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code nbdinfo --list} at a site with a controller (a real 3-node ensemble) shows every
 * image of the catalog, opened there or not, described; and says why when it cannot.
 */
class SiteExportListIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern LISTED = Pattern.compile("^export=\"([^\"]*)\":\\n(?:\\tdescription: (.*)$)?", Pattern.MULTILINE);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    private static TestingSite site(String name) {
        return TestingSite.start("--site", name, "--controller", cluster.controller(0).target());
    }

    private static void createImage(String... args) {
        String[] command = new String[args.length + 4];
        command[0] = "image";
        command[1] = "create";
        System.arraycopy(args, 0, command, 2, args.length);
        command[args.length + 2] = "--controller";
        command[args.length + 3] = cluster.controller(0).target();
        helio(command).assertSuccess();
    }

    /** Each export nbdinfo listed, with its description ("" when none). */
    private static Map<String, String> listed(String output) {
        Map<String, String> exports = new LinkedHashMap<>();
        Matcher export = LISTED.matcher(output);
        while (export.find()) {
            exports.put(export.group(1), export.group(2) == null ? "" : export.group(2));
        }
        return exports;
    }

    @Test
    void listsAnImageCreatedInTheCatalogAndNeverOpenedHereWithItsDescription() throws Exception {
        try (TestingSite site = site("lister")) {
            createImage("written", "--size", "4M");
            ok("qemu-io", "-f", "raw", "-c", "write -P 0x5a 0 1M", site.nbdUri("written"));
            ControllerClient controller = cluster.client(0);
            Await.until("the site's close reached the controller", TIMEOUT,
                    () -> controller.status("written").getLease().getHolder().isEmpty() && controller.status("written").getMetaSeq() > 0);
            createImage("fresh", "--size", "256M", "--mode", "on-demand", "--home", "lister");

            String list = ok("nbdinfo", "--list", site.nbdServerUri()).stdout();

            assertThat(listed(list)).as(list)
                    .containsEntry("fresh", "256 MiB, on-demand, home lister, no data written yet")
                    .containsEntry("written", "4 MiB, proactive, home lister, current at lister");
        }
    }

    @Test
    void listsAnImageOpenAtAnotherSiteWithoutTakingItsLease() throws Exception {
        try (TestingSite holder = site("holder"); TestingSite viewer = site("viewer")) {
            createImage("busy", "--size", "8M");
            ControllerClient controller = cluster.client(0);
            try (ChildProcess writer = ChildProcess.start("qemu-io", List.of("qemu-io", "-f", "raw",
                    "-c", "write -P 0x11 0 64k", "-c", "flush", "-c", "sleep 600000", holder.nbdUri("busy")))) {
                Await.until("the holder took the lease", TIMEOUT, () -> controller.status("busy").getLease().getHolder().equals("holder"));
                long epoch = controller.status("busy").getLease().getEpoch();

                // nbdinfo asks NBD_OPT_INFO of every export it lists: an open at the viewer would wait for the lease, then fail.
                String list = ok("nbdinfo", "--list", viewer.nbdServerUri()).stdout();

                assertThat(listed(list).get("busy")).as(list).startsWith("8 MiB, proactive, home holder, open at holder, ");
                assertThat(list).contains("export-size: 8388608");
                assertThat(controller.status("busy").getLease()).extracting(lease -> lease.getHolder(), lease -> lease.getEpoch())
                        .containsExactly("holder", epoch);
                assertThat(writer.isAlive()).as("qemu-io holds the image open; output:%n%s", writer.output()).isTrue();
            }
        }
    }

    @Test
    void aListWhileTheControllerIsDownFailsWithTheReasonAndOneWarning() throws Exception {
        try (TestingSite site = site("orphan")) {
            createImage("unlisted", "--size", "4M");
            cluster.controller(0).kill9();

            String reason = "cannot reach controller at " + cluster.controller(0).target();

            // nbdinfo prints the server's message only in libnbd's debug output; qemu-nbd prints it as it is.
            Tools.Result nbdinfo = run("env", "LIBNBD_DEBUG=1", "nbdinfo", "--list", site.nbdServerUri());
            assertThat(nbdinfo.exitCode()).as(nbdinfo.toString()).isNotZero();
            assertThat(nbdinfo.stderr()).as(nbdinfo.toString()).contains("server error message: " + reason);
            Tools.Result qemuNbd = run("qemu-nbd", "--list", "--bind", "127.0.0.1", "--port", Integer.toString(site.nbdPort()));
            assertThat(qemuNbd.exitCode()).as(qemuNbd.toString()).isNotZero();
            assertThat(qemuNbd.stderr()).as(qemuNbd.toString()).contains("server reported: " + reason);

            assertThat(site.log().lines().filter(line -> line.contains("cannot list the images for NBD clients"))).hasSize(1);
        }
    }
}
