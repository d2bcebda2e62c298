package io.heliotrope.controller.cluster;

import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.vm.DiskEpochs;
import io.heliotrope.controller.vm.MigrationInFlight;
import io.heliotrope.controller.vm.MigrationOutcome;
import io.heliotrope.controller.vm.MigrationRecord;
import io.heliotrope.controller.vm.VmService;
import io.heliotrope.controller.vm.VmSpec;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.proto.storage.v1.VmRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** The VMs as the status port shows them: definitions, what each site's runner says, leases and migrations. */
@ExtendWith(ZooKeeperExtension.class)
class TestVmView {
    private static final ClusterViewConfig FAST = new ClusterViewConfig(Duration.ofMillis(50), Duration.ofSeconds(1));
    private static final long MIB = 1L << 20;

    private final List<TestingSite> sites = new ArrayList<>();
    private final ExecutorService executor = Executors.newFixedThreadPool(2, task -> new Thread(task, "test-vms"));
    private TestingController controller;
    private ClusterView cluster;
    private VmService vms;
    private VmView view;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = new TestingController(zooKeeper, TestingController.newRoot(), Clock.systemUTC(), TestingController.MANUAL);
        cluster = new ClusterView(controller.service(), controller.metrics(), FAST, Clock.systemUTC());
        vms = new VmService(controller.zk(), new ZooKeeperLayout(controller.root()), Clock.systemUTC(), executor, controller.metrics().migrations());
        view = new VmView(vms, controller.service(), cluster, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        cluster.close();
        sites.forEach(TestingSite::close);
        executor.shutdownNow();
        controller.close();
    }

    @Test
    void eachVmHasTheStateItsSiteReportsOrSaysWhyItIsUnknown() throws Exception {
        TestingSite virginia = site("virginia");
        virginia.runs(runtime("web", "running", ""), runtime("crashed", "exited", "crashed: qemu: could not open disk"));
        TestingSite oregon = site("oregon");
        register("taiwan", "127.0.0.1:" + TestingSite.closedPort());
        controller.createImage("root-disk", 16);
        controller.openForWrite("root-disk", "virginia");
        for (String vm : List.of("web", "crashed", "stopped")) {
            await(vms.create(spec(vm), "virginia"));
        }
        await(vms.create(spec("db"), "taiwan"));
        await(vms.create(spec("legacy"), "oregon"));

        virginia.awaitRound();
        oregon.awaitRound();
        VmsStatus status = await(view.statusAsync());

        assertThat(status.vms()).extracting(VmsStatus.VmState::name).containsExactly("crashed", "db", "legacy", "stopped", "web");
        assertThat(status.vms()).extracting(VmsStatus.VmState::state)
                .containsExactly("exited", "unknown (site unreachable)", "unknown (the site runs no VM runner)", "not running", "running");
        assertThat(status.vms().get(0).exitReason()).isEqualTo("crashed: qemu: could not open disk");
        assertThat(status.vms().get(4).disks()).containsExactly(new VmsStatus.Disk("root-disk", "virginia", 1, "", ""));
        assertThat(status.vms().get(4).runtimes()).containsExactly(new VmsStatus.Runtime("virginia", "running", "", false, ""));
        assertThat(status.inFlight()).isEmpty();
        assertThat(status.history()).isEmpty();
    }

    @Test
    void aMigrationInFlightShowsItsProgressAndTheDestinationsQemu() throws Exception {
        TestingSite virginia = site("virginia");
        TestingSite taiwan = site("taiwan");
        virginia.runs(runtime("web", "running", ""));
        taiwan.runs(runtime("web", "inmigrate", "").toBuilder().setIncoming(true).build());
        controller.createImage("root-disk", 16);
        await(vms.create(spec("web"), "virginia"));
        long started = System.currentTimeMillis() - 5_000;
        await(vms.reportMigration("web", new MigrationInFlight("m1", "virginia", "taiwan", "precopy", started, 0, 256 * MIB, 64 * MIB, 4096,
                "operator", "e1")));

        taiwan.awaitRound();
        VmsStatus status = await(view.statusAsync());

        assertThat(status.vms().get(0).runtimes()).extracting(VmsStatus.Runtime::site, VmsStatus.Runtime::state, VmsStatus.Runtime::incoming)
                .containsExactly(tuple("taiwan", "inmigrate", true), tuple("virginia", "running", false));
        assertThat(status.inFlight()).singleElement().satisfies(inFlight -> {
            assertThat(inFlight.vm()).isEqualTo("web");
            assertThat(inFlight.ramSentPercent()).isEqualTo(75);
            assertThat(inFlight.elapsedMillis()).isBetween(5_000L, 60_000L);
            assertThat(inFlight.stale()).isFalse();
            assertThat(inFlight.ensembleId()).isEqualTo("e1");
        });
    }

    @Test
    void theHistoryIsTheNewestMigrationsOfEveryVmNewestFirst() {
        controller.registerSites("virginia", "taiwan");
        controller.createImage("root-disk", 16);
        await(vms.create(spec("web"), "virginia"));
        await(vms.create(spec("db"), "virginia"));
        // web's migrations ended at seconds 0, 2, 4, ...; db's at 1, 3, 5, ...: 30 in all.
        IntStream.range(0, 30).forEach(i -> await(vms.recordMigration(i % 2 == 0 ? "web" : "db", record("m" + i, i))));

        VmsStatus status = await(view.statusAsync());

        assertThat(status.history()).extracting(VmsStatus.Done::id)
                .containsExactlyElementsOf(IntStream.range(0, VmView.HISTORY).map(i -> 29 - i).mapToObj(i -> "m" + i).toList());
        assertThat(status.history().get(0)).isEqualTo(new VmsStatus.Done("db", "m29", 1_700_000_029_000L, 1_700_000_030_000L, "virginia", "taiwan",
                "rolled_back", "the destination died", 1_000_000, 180_000, 40_000, 256 * MIB, 4 * MIB, 65_536, "operator", "e1"));
    }

    private static MigrationRecord record(String id, int second) {
        return new MigrationRecord(id, "virginia", "taiwan", MigrationOutcome.ROLLED_BACK, "the destination died", "operator",
                1_700_000_000_000L + second * 1_000L, 1_000_000, 180_000, 40_000, 256 * MIB, 4 * MIB, 64 * 1024,
                List.of(new DiskEpochs("root-disk", 3, 5)), "e1", 0, 0, 0, 0);
    }

    private static VmRuntime runtime(String name, String state, String exitReason) {
        return VmRuntime.newBuilder().setName(name).setState(state).setExitReason(exitReason).build();
    }

    private static VmSpec spec(String name) {
        return new VmSpec(name, 256 * MIB, 1, List.of("root-disk"), null, null, null, null);
    }

    private TestingSite site(String name) throws IOException {
        TestingSite site = new TestingSite(0);
        sites.add(site);
        register(name, site.address());
        return site;
    }

    private void register(String name, String address) {
        await(controller.service().registerSite(new Site(name, address, "", 0, 0, 0)));
    }
}
