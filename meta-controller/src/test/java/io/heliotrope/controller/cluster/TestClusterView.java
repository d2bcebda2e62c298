package io.heliotrope.controller.cluster;

import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.catalog.ImageConfig;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageLocality;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(ZooKeeperExtension.class)
class TestClusterView {
    private static final ClusterViewConfig FAST = new ClusterViewConfig(Duration.ofMillis(50), Duration.ofSeconds(1));

    private final List<TestingSite> sites = new ArrayList<>();
    private TestingController controller;
    private ClusterView view;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = new TestingController(zooKeeper, TestingController.newRoot(), Clock.systemUTC(), TestingController.MANUAL);
        view = new ClusterView(controller.service(), controller.metrics(), FAST, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        view.close();
        sites.forEach(TestingSite::close);
        controller.close();
    }

    @Test
    void eachSiteIsUpWithItsLastAnswerOrDownWithTheReason() throws Exception {
        TestingSite virginia = site("virginia", 0);
        SiteStatus answer = SiteStatus.newBuilder().setSite("virginia").setStartedEpochMillis(1_700_000_000_000L).build();
        virginia.answer(answer);
        int closed = TestingSite.closedPort();
        register("taiwan", "127.0.0.1:" + closed);
        long before = System.currentTimeMillis();

        virginia.awaitRound();

        List<SiteHealth> sites = view.status("").getSitesList();
        assertThat(sites).extracting(health -> health.getSite().getName()).containsExactly("taiwan", "virginia");
        assertThat(sites.get(0).getUp()).isFalse();
        assertThat(sites.get(0).getLastSeenEpochMillis()).isZero();
        assertThat(sites.get(0).getError()).startsWith("cannot reach 127.0.0.1:" + closed);
        assertThat(sites.get(0).hasStatus()).isFalse();
        assertThat(sites.get(1).getUp()).isTrue();
        assertThat(sites.get(1).getLastSeenEpochMillis()).isGreaterThanOrEqualTo(before);
        assertThat(sites.get(1).getError()).isEmpty();
        assertThat(sites.get(1).getStatus()).isEqualTo(answer);
        assertThat(sites.get(1).getSite().getGrpcAddress()).isEqualTo(virginia.address());
        assertThat(controller.metrics().registry().get("heliotrope.controller.sites.up").gauge().value()).isEqualTo(1);
        assertThat(controller.metrics().registry().get("heliotrope.controller.sites").gauge().value()).isEqualTo(2);
    }

    @Test
    void aSiteThatStopsAnsweringKeepsItsLastStatusUntilItAnswersAgain() throws Exception {
        TestingSite witness = site("witness", 0);
        witness.answer(SiteStatus.newBuilder().setSite("witness").build());
        TestingSite virginia = site("virginia", 0);
        SiteStatus first = SiteStatus.newBuilder().setSite("virginia").setStartedEpochMillis(1).build();
        virginia.answer(first);
        virginia.awaitRound();
        long lastSeen = health("virginia").getLastSeenEpochMillis();

        virginia.close();
        witness.awaitRound();

        SiteHealth down = health("virginia");
        assertThat(down.getUp()).isFalse();
        assertThat(down.getError()).startsWith("cannot reach " + virginia.address());
        assertThat(down.getStatus()).isEqualTo(first);
        assertThat(down.getLastSeenEpochMillis()).isGreaterThanOrEqualTo(lastSeen);

        TestingSite restarted = new TestingSite(virginia.port());
        sites.add(restarted);
        SiteStatus second = first.toBuilder().setStartedEpochMillis(2).build();
        restarted.answer(second);
        restarted.awaitRound();

        SiteHealth up = health("virginia");
        assertThat(up.getUp()).isTrue();
        assertThat(up.getError()).isEmpty();
        assertThat(up.getStatus()).isEqualTo(second);
    }

    @Test
    void aSiteWithoutGetSiteStatusIsUpWithoutAStatus() throws Exception {
        TestingSite older = site("older", 0);

        older.awaitRound();

        SiteHealth health = health("older");
        assertThat(health.getUp()).isTrue();
        assertThat(health.hasStatus()).isFalse();
        assertThat(health.getError()).isEqualTo("the site does not report its status (GetSiteStatus is not implemented there)");
    }

    @Test
    void aSiteRegisteredAtAnotherAddressIsAskedThere() throws Exception {
        TestingSite before = site("virginia", 0);
        before.answer(SiteStatus.newBuilder().setStartedEpochMillis(1).build());
        before.awaitRound();
        TestingSite after = new TestingSite(0);
        sites.add(after);
        SiteStatus moved = SiteStatus.newBuilder().setStartedEpochMillis(2).build();
        after.answer(moved);

        register("virginia", after.address());
        after.awaitRound();

        assertThat(health("virginia").getStatus()).isEqualTo(moved);
        assertThat(health("virginia").getSite().getGrpcAddress()).isEqualTo(after.address());
    }

    @Test
    void imagesMergeTheCatalogWithWhatEachUpSiteHolds() throws Exception {
        ImageConfig vm = controller.createImage("vm", 1024);
        ImageConfig data = controller.createImage("data", 1024);
        SiteImageStatus vmAtVirginia = SiteImageStatus.newBuilder().setName("vm").setUuid(vm.uuid().toString()).setDirtyBlocks(3).build();
        // A copy of an earlier image of the same name: another identity, not this image's.
        SiteImageStatus oldData = SiteImageStatus.newBuilder().setName("data").setUuid(UUID.randomUUID().toString()).build();
        SiteImageStatus dataStandalone = SiteImageStatus.newBuilder().setName("data").setAllocatedBlocks(5).build();
        TestingSite virginia = site("virginia", 0);
        virginia.answer(SiteStatus.newBuilder().setSite("virginia").addImages(vmAtVirginia).addImages(oldData).build());
        TestingSite taiwan = site("taiwan", 0);
        taiwan.answer(SiteStatus.newBuilder().setSite("taiwan").addImages(dataStandalone).build());
        Lease lease = controller.openForWrite("vm", "virginia");
        controller.flush("vm", "virginia", lease.epoch(), BlockEntries.builder().add(7, Version.compose(lease.epoch(), 1), "virginia").build());

        taiwan.awaitRound();
        ClusterStatus status = view.status("");

        assertThat(status.getImagesList()).extracting(image -> image.getStatus().getConfig().getName()).containsExactly("data", "vm");
        assertThat(status.getImages(0).getStatus().getConfig().getUuid()).isEqualTo(data.uuid().toString());
        assertThat(status.getImages(0).getSitesList()).containsExactly(SiteImageState.newBuilder().setSite("taiwan").setImage(dataStandalone).build());
        ClusterImage merged = status.getImages(1);
        assertThat(merged.getStatus().getLease().getHolder()).isEqualTo("virginia");
        assertThat(merged.getStatus().getMetaSeq()).isEqualTo(1);
        assertThat(merged.getStatus().getCurrentBlocks(0).getBlocks()).isEqualTo(1);
        assertThat(merged.getSitesList()).containsExactly(SiteImageState.newBuilder().setSite("virginia").setImage(vmAtVirginia).build());
        assertThat(status.getGeneratedEpochMillis()).isPositive();
        assertThat(controller.metrics().registry().get("heliotrope.controller.leases.held").gauge().value()).isEqualTo(1);
        assertThat(view.status("vm").getImagesList()).containsExactly(merged);
        assertRefused(() -> view.status("nope"), ErrorCode.IMAGE_NOT_FOUND, "image 'nope' does not exist");
    }

    @Test
    void theRttMatrixComesWithTheSites() {
        controller.registerSites("a", "b");
        await(controller.service().reportRtt("a", Map.of("b", 75_000L), 10_000));

        ClusterStatus status = view.status("");

        assertThat(status.getRtt().getRowsList()).singleElement().satisfies(row -> {
            assertThat(row.getSite()).isEqualTo("a");
            assertThat(row.getPeers(0).getRttMicros()).isEqualTo(75_000);
        });
    }

    @Test
    void localityTellsTheSiteHoldingMostOfEachRegion() {
        controller.registerSites("virginia");
        controller.createImage("vm", 1024);
        Lease lease = controller.openForWrite("vm", "virginia");
        BlockEntries.Builder entries = BlockEntries.builder();
        for (int block = 0; block < 384; block++) {
            entries.add(block, Version.compose(lease.epoch(), 1), "virginia");
        }
        controller.flush("vm", "virginia", lease.epoch(), entries.build());

        ImageLocality locality = view.locality("vm", 4);

        assertThat(locality.getImage()).isEqualTo("vm");
        assertThat(locality.getMetaSeq()).isEqualTo(1);
        assertThat(locality.getRegionBytes()).isEqualTo(256 * 4096);
        assertThat(locality.getSitesList()).containsExactly("virginia");
        assertThat(locality.getHoldersList()).containsExactly(1, 1, 0, 0);
        assertThat(locality.getSharesList()).containsExactly(1f, 0.5f, 0f, 0f);
        assertThat(view.locality("vm", 0).getHoldersCount()).isEqualTo(256);
        assertRefused(() -> view.locality("vm", 4097), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': the locality map has 1 to 4096 regions (0 for 256), not 4097");
        assertRefused(() -> view.locality("nope", 4), ErrorCode.IMAGE_NOT_FOUND, "image 'nope' does not exist");
    }

    private TestingSite site(String name, int port) throws IOException {
        TestingSite site = new TestingSite(port);
        sites.add(site);
        register(name, site.address());
        return site;
    }

    private void register(String name, String address) {
        await(controller.service().registerSite(new Site(name, address, "", 0, 0, 0)));
    }

    private SiteHealth health(String site) {
        return view.status("").getSitesList().stream().filter(health -> health.getSite().getName().equals(site)).findFirst().orElseThrow();
    }
}
