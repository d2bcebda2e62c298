package io.heliotrope.cli;

import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.CreateImageRequest;
import io.heliotrope.proto.controller.v1.DeleteImageRequest;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.PullMode;
import io.heliotrope.proto.controller.v1.ReplicationSettings;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.RttRow;
import io.heliotrope.proto.controller.v1.SetImageRequest;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SyncState;
import io.heliotrope.proto.storage.v1.SiteStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import static org.assertj.core.api.Assertions.assertThat;

/** The commands that read the cluster view, against a controller with canned answers. */
class TestClusterCommands {
    private static final long NOW = 1_700_000_000_000L;
    private static final ClusterImage DEMO = ClusterImage.newBuilder()
            .setStatus(ImageStatus.newBuilder()
                    .setConfig(ImageConfig.newBuilder().setName("demo").setSizeBytes(256L << 20).setBlockSize(4096)
                            .setMode(PropagationMode.PROPAGATION_MODE_PROACTIVE).setHome("virginia"))
                    .setLease(Lease.newBuilder().setHolder("virginia").setEpoch(3))
                    .setMetaSeq(9)
                    .addCurrentBlocks(SiteBlocks.newBuilder().setSite("virginia").setBlocks(16))
                    .addCurrentBlocks(SiteBlocks.newBuilder().setSite("taiwan").setBlocks(256)))
            .addSites(SiteImageState.newBuilder().setSite("virginia").setImage(SiteImageStatus.newBuilder().setName("demo")
                    .setAllocatedBlocks(272).setDirtyBlocks(2).setQueuedBlocks(5).setOldestQueuedMillis(1200).setConnections(1)))
            .build();
    private static final ClusterImage MOVING = ClusterImage.newBuilder()
            .setStatus(ImageStatus.newBuilder()
                    .setConfig(ImageConfig.newBuilder().setName("vm1").setSizeBytes(1L << 30).setBlockSize(4096)
                            .setMode(PropagationMode.PROPAGATION_MODE_SYNC))
                    .setLease(Lease.newBuilder().setHolder("virginia").setEpoch(7).setMovingTo("taiwan")))
            .addSites(SiteImageState.newBuilder().setSite("virginia").setImage(SiteImageStatus.newBuilder().setName("vm1")
                    .setSyncState(SyncState.SYNC_STATE_DEGRADED).addSyncDownSites("taiwan").setSyncMissedBlocks(12)))
            .build();
    private static final ClusterStatus CLUSTER = ClusterStatus.newBuilder()
            .setGeneratedEpochMillis(NOW)
            .addSites(SiteHealth.newBuilder().setUp(true).setLastSeenEpochMillis(NOW - 400).setStatus(SiteStatus.newBuilder().setSite("virginia"))
                    .setSite(Site.newBuilder().setName("virginia").setGrpcAddress("127.0.0.1:7410").setNbdAddress("127.0.0.1:10809")))
            .addSites(SiteHealth.newBuilder().setLastSeenEpochMillis(NOW - 12_000).setError("connection refused")
                    .setSite(Site.newBuilder().setName("taiwan").setGrpcAddress("127.0.0.1:7411").setNbdAddress("127.0.0.1:10810")))
            .setRtt(RttMatrix.newBuilder()
                    .addRows(RttRow.newBuilder().setSite("virginia").addPeers(PeerRtt.newBuilder().setPeer("taiwan").setRttMicros(75_300)))
                    .addRows(RttRow.newBuilder().setSite("taiwan").addPeers(PeerRtt.newBuilder().setPeer("virginia").setRttMicros(75_100))))
            .addImages(DEMO)
            .addImages(MOVING)
            .build();

    private static TestingController controller;

    @BeforeAll
    static void start() {
        controller = new TestingController(CLUSTER);
    }

    @AfterAll
    static void stop() {
        controller.close();
    }

    @Test
    void imageLsPrintsALinePerImageWithItsLeaseAndWhereItIsCurrent() {
        assertThat(helio("image", "ls").stdout()).isEqualTo("""
                NAME       SIZE  MODE       HOME      HOLDER    EPOCH  CURRENT AT
                demo  256.0 MiB  proactive  virginia  virginia      3  taiwan 1.0 MiB, virginia 64.0 KiB
                vm1     1.0 GiB  sync       -         virginia      7  -
                """);
    }

    @Test
    void imageShowMergesTheCatalogWithEachSite() {
        assertThat(helio("image", "show", "demo").stdout()).contains(
                "lease:       held by virginia, epoch 3, expires 1970-01-01T00:00:00Z\n",
                "metaSeq:     9 (snapshot at 0, 0 bytes in ZooKeeper)\n", """
                sites, in blocks of 4.0 KiB:
                  SITE           CURRENT  ALLOCATED  DIRTY  QUEUED    LAG  CONNECTIONS  ELSEWHERE  PULL
                  taiwan (down)      256          -      -       -      -            -          -  -
                  virginia            16    1.1 MiB      2       5  1.2 s            1          -  -
                """);
    }

    @Test
    void statusShowsSitesRoundTripsImagesTransfersAndMigrations() {
        assertThat(helio("status").stdout()).isEqualTo("""
                the controller at %s (from --controller), at 2023-11-14T22:13:20Z
                sites:
                  SITE      STATE  GRPC            NBD              LAST SEEN   NOTE
                  virginia  up     127.0.0.1:7410  127.0.0.1:10809  400 ms ago
                  taiwan    down   127.0.0.1:7411  127.0.0.1:10810  12.0 s ago  connection refused
                round trips in ms (rows measured from, columns to):
                  FROM\\TO     taiwan  virginia
                  taiwan           -      75.1
                  virginia      75.3         -
                images:
                  NAME       SIZE  MODE       HOME      HOLDER    EPOCH  CURRENT AT
                  demo  256.0 MiB  proactive  virginia  virginia      3  taiwan 1.0 MiB, virginia 64.0 KiB
                  vm1     1.0 GiB  sync       -         virginia      7  -
                VMs:
                  none
                transfers in flight (blocks waiting at a site to be pushed to others):
                  IMAGE  SITE      QUEUED    LAG
                  demo   virginia       5  1.2 s
                lease moves in flight (write leases being handed over, as in a VM's migration):
                  IMAGE  FROM      TO      EPOCH
                  vm1    virginia  taiwan      7
                sync images open for writing (DEGRADED: some writes are only at the writing site, lost if it is lost):
                  IMAGE  SITE      STATE     COPIES TO  NOT ANSWERING  ONLY HERE
                  vm1    virginia  DEGRADED  none       taiwan                12
                """.formatted(controller.target()));
    }

    @Test
    void jsonIsTheControllersAnswerAndParsesBack() {
        assertThat(helio("status", "--json").json(ClusterStatus.newBuilder())).isEqualTo(CLUSTER);
        assertThat(helio("image", "ls", "--json").json(ClusterStatus.newBuilder()))
                .isEqualTo(CLUSTER.toBuilder().clearSites().clearRtt().build());
        assertThat(helio("image", "show", "demo", "--json").json(ClusterImage.newBuilder())).isEqualTo(DEMO);
        assertThat(helio("rtt", "--json").json(RttMatrix.newBuilder())).isEqualTo(CLUSTER.getRtt());
    }

    @Test
    void jsonHasEveryFieldEvenAtItsDefault() {
        String json = helio("image", "show", "vm1", "--json").stdout();

        assertThat(json).startsWith("{\n").endsWith("}\n").contains("\"movingTo\": \"taiwan\"", "\"home\": \"\"", "\"zeroBlocks\": \"0\"");
    }

    @Test
    void catalogChangesGoToTheController() {
        controller.requests.clear();

        assertThat(helio("image", "create", "vm2", "--size", "64M", "--mode", "on-demand").stdout()).isEqualTo("created vm2 (64.0 MiB, on-demand)\n");
        assertThat(helio("image", "set", "vm2", "--mode", "remote", "--pull", "off").stdout())
                .startsWith("changed vm2; sites apply it from the image's next open\n");
        assertThat(helio("image", "rm", "vm2").stdout()).isEqualTo("removed vm2\n");

        assertThat(controller.requests).containsExactly(
                CreateImageRequest.newBuilder().setName("vm2").setSizeBytes(64L << 20)
                        .setReplication(ReplicationSettings.newBuilder().setMode(PropagationMode.PROPAGATION_MODE_ON_DEMAND)).build(),
                SetImageRequest.newBuilder().setName("vm2")
                        .setReplication(ReplicationSettings.newBuilder().setMode(PropagationMode.PROPAGATION_MODE_REMOTE)
                                .setPull(PullMode.PULL_MODE_OFF)).build(),
                DeleteImageRequest.newBuilder().setName("vm2").build());
    }

    @Test
    void mistakesAndWhatIsNotSupportedAreOneLineUserErrors() {
        assertThat(helio("image", "show", "missing")).isEqualTo(new HelioRun(1, "", "helio: image 'missing' does not exist\n"));
        assertThat(helio("image", "resize", "demo", "--size", "1G"))
                .isEqualTo(new HelioRun(1, "", "helio: 'image resize': not supported yet for the images of a controller's catalog\n"));
        assertThat(helio("image", "export", "demo", "/nonexistent/demo.raw", "--site", "oregon")).isEqualTo(new HelioRun(1, "",
                "helio: site 'oregon' is not registered with the controller (its sites: virginia, taiwan)\n"));
    }

    @Test
    void anUnreachableControllerIsAnErrorNamingItsAddressAndWhereItCameFrom() {
        HelioRun result = HelioRun.of("status", "--controller", "127.0.0.1:1");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stdout()).isEmpty();
        assertThat(result.stderr()).startsWith("helio: cannot reach the controller at 127.0.0.1:1 (from --controller): ").endsWith("\n")
                .hasLineCount(1);
    }

    @Test
    void aListOfControllersIsServedByTheFirstThatAnswersAndStatusSaysHowEachOneIs() {
        String controllers = "127.0.0.1:1," + controller.target();
        HelioRun result = HelioRun.of("status", "--controller", controllers);

        assertThat(result.exitCode()).isZero();
        assertThat(result.stdout()).startsWith("the controller at " + controllers + " (from --controller), at 2023-11-14T22:13:20Z\ncontrollers:\n")
                .containsPattern("\\n  127\\.0\\.0\\.1:1 +down: cannot reach the controller at 127\\.0\\.0\\.1:1")
                .contains("\n  " + controller.target() + "  up\n")
                .contains("\n  virginia  up ");
        assertThat(HelioRun.of("image", "ls", "--controller", "127.0.0.1:1,oops")).isEqualTo(new HelioRun(1, "",
                "helio: invalid address of the controller at 127.0.0.1:1,oops (from --controller): 'oops' in '127.0.0.1:1,oops' is not HOST:PORT\n"));
    }

    @Test
    void siteOnlyOptionsAreRefusedByAStandaloneSite() {
        assertThat(HelioRun.of("image", "import", "/dev/null", "x", "--site", "virginia", "--server", "127.0.0.1:1")).isEqualTo(new HelioRun(1, "",
                "helio: --site picks one of a controller's sites; this command talks to the site at 127.0.0.1:1 (from --server) alone\n"));
        assertThat(HelioRun.of("image", "set", "x", "--mode", "sync", "--server", "127.0.0.1:1")).isEqualTo(new HelioRun(1, "",
                "helio: 'image set': the site at 127.0.0.1:1 (from --server) keeps no replication settings; a controller's catalog does\n"));
    }

    /** Runs {@code helio ARGS --controller TESTING_CONTROLLER}. */
    private static HelioRun helio(String... args) {
        String[] withController = Arrays.copyOf(args, args.length + 2);
        withController[args.length] = "--controller";
        withController[args.length + 1] = controller.target();
        return HelioRun.of(withController);
    }
}
