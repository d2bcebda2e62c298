package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The helio command as a user with {@code HELIO_CONTROLLER} set sees it: two sites on a
 * controller and a real 3-node ensemble, and no command given --controller or --server.
 */
class HelioClusterIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1);

    private static final Cleanup sites = new Cleanup();
    private static TestingSite a;
    private static TestingSite b;
    private static Map<String, String> env;

    @BeforeAll
    static void startSites() {
        String controller = cluster.controller(0).target();
        env = Map.of("HELIO_CONTROLLER", controller);
        a = TestingSite.start("--site", "site-a", "--controller", controller);
        sites.add(a::close);
        b = TestingSite.start("--site", "site-b", "--controller", controller);
        sites.add(b::close);
        Await.until("the controller sees both sites up", TIMEOUT,
                () -> cluster().getSitesList().stream().filter(SiteHealth::getUp).count() == 2);
    }

    @AfterAll
    static void stopSites() {
        sites.close();
    }

    @Test
    void anImageCreatedAtTheControllerIsListedWithWhatEachSiteHasOfIt() {
        assertThat(helio(env, "image", "create", "shared", "--size", "16M").assertSuccess().stdout()).isEqualTo("created shared (16.0 MiB, proactive)\n");
        ok("qemu-io", "-f", "raw", "-c", "write -P 0x5a 0 64k", a.nbdUri("shared"));
        Await.until("site-a flushed its 16 blocks and released the lease", TIMEOUT, () -> {
            ClusterImage image = image("shared");
            return current(image, "site-a") == 16 && image.getStatus().getLease().getHolder().isEmpty();
        });
        ok("qemu-io", "-f", "raw", "-c", "read -P 0x5a 0 64k", b.nbdUri("shared"));
        Await.until("site-b reports the 16 blocks it fetched, and closed the image", TIMEOUT, () -> {
            ClusterImage image = image("shared");
            SiteImageState atB = site(image, "site-b");
            return atB.getImage().getAllocatedBlocks() == 16 && atB.getImage().getConnections() == 0 && image.getStatus().getLease().getHolder().isEmpty();
        });

        assertThat(helio(env, "image", "ls").assertSuccess().stdout())
                .containsPattern("(?m)^NAME +SIZE +MODE +HOME +HOLDER +EPOCH +CURRENT AT$")
                .containsPattern("(?m)^shared +16\\.0 MiB +proactive +site-a +- +\\d+ +site-a 64\\.0 KiB$");
        assertThat(helio(env, "image", "show", "shared").assertSuccess().stdout())
                .contains("name:        shared\n", "home:        site-a\n", "lease:       none (last epoch ")
                .containsPattern("\\n  site-a +16 +64\\.0 KiB +0 +\\d+ +\\S+( s| ms)? +0 +- +-\\n")
                .containsPattern("\\n  site-b +\\d+ +64\\.0 KiB +0 +\\d+ +\\S+( s| ms)? +0 +- +-\\n");
        ClusterImage shown = image("shared");
        assertThat(shown.getStatus().getConfig().getSizeBytes()).isEqualTo(16 << 20);
        assertThat(site(shown, "site-a").getImage().getAllocatedBlocks()).isEqualTo(16);
        assertThat(site(shown, "site-a").getImage().getDirtyBlocks()).isZero();
    }

    @Test
    void statusShowsTheSitesUpAndTheImagesWithTheirLeases() {
        helio(env, "image", "create", "listed", "--size", "4M").assertSuccess();

        assertThat(helio(env, "status").assertSuccess().stdout())
                .startsWith("the controller at " + cluster.controller(0).target() + " (from HELIO_CONTROLLER), at ")
                .containsPattern("\\n  site-a +up +" + a.grpcTarget().replace(".", "\\.") + " +127\\.0\\.0\\.1:" + a.nbdPort() + " ")
                .containsPattern("\\n  site-b +up +" + b.grpcTarget().replace(".", "\\.") + " +127\\.0\\.0\\.1:" + b.nbdPort() + " ")
                .containsPattern("\\n  listed +4\\.0 MiB +proactive +- +- +0 +-\\n")
                .contains("\nVMs:\n  none\n")
                .contains("\nlease moves in flight (write leases being handed over, as in a VM's migration):\n  none\n");
        ClusterStatus status = JsonOutput.parse(helio(env, "status", "--json"), ClusterStatus.newBuilder());
        assertThat(status.getSitesList()).extracting(site -> site.getSite().getName() + " " + site.getUp())
                .containsExactlyInAnyOrder("site-a true", "site-b true");
        assertThat(status.getImagesList()).extracting(image -> image.getStatus().getConfig().getName()).contains("listed");
    }

    @Test
    void importAndExportGoThroughTheControllersSites(@TempDir Path tmp) throws Exception {
        Path original = TestData.truncate(tmp.resolve("original.raw"), 4 << 20);
        TestData.writeRandom(original, 1 << 20, 100_000);
        Path exported = tmp.resolve("exported.raw");

        helio(env, "image", "import", original.toString(), "imported").assertSuccess();
        helio(env, "image", "export", "imported", exported.toString(), "--site", "site-b").assertSuccess();

        assertThat(Files.readAllBytes(exported)).isEqualTo(Files.readAllBytes(original));
        assertThat(image("imported").getStatus().getConfig().getHome()).isIn("site-a", "site-b");
    }

    private static ClusterStatus cluster() {
        return JsonOutput.parse(helio(env, "status", "--json"), ClusterStatus.newBuilder());
    }

    private static ClusterImage image(String name) {
        return JsonOutput.parse(helio(env, "image", "show", name, "--json"), ClusterImage.newBuilder());
    }

    private static long current(ClusterImage image, String site) {
        return image.getStatus().getCurrentBlocksList().stream().filter(blocks -> blocks.getSite().equals(site)).mapToLong(SiteBlocks::getBlocks).sum();
    }

    private static SiteImageState site(ClusterImage image, String site) {
        return image.getSitesList().stream().filter(state -> state.getSite().equals(site)).findFirst().orElse(SiteImageState.getDefaultInstance());
    }
}
