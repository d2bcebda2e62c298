package io.heliotrope.controller.vm;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.error.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(ZooKeeperExtension.class)
class TestVmService {
    private static final long MIB = 1L << 20;

    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private final ExecutorService executor = Executors.newFixedThreadPool(2, task -> new Thread(task, "test-vms"));
    private TestingController controller;
    private VmService vms;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "root-disk", "virginia", "taiwan");
        controller.createImage("data", 16);
        vms = new VmService(controller.zk(), new ZooKeeperLayout(controller.root()), clock, executor, controller.metrics().migrations());
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
        controller.close();
    }

    @Test
    void aVmIsDefinedAtASiteAndReadBack() {
        Vm created = await(vms.create(spec("web", "root-disk", "data"), "virginia"));

        assertThat(created).isEqualTo(new Vm(new VmSpec("web", 256 * MIB, 2, List.of("root-disk", "data"), "", "", "", "tcg"),
                "virginia", clock.millis(), 1, List.of(), null));
        assertThat(await(vms.get("web"))).isEqualTo(created);
        await(vms.create(new VmSpec("boot", 64 * MIB, 1, List.of(), "/boot/vmlinuz", "/boot/initrd", "console=ttyS0", "kvm"), "taiwan"));
        assertThat(await(vms.list())).extracting(Vm::name).containsExactly("boot", "web");
    }

    @Test
    void aDefinitionNamesRegisteredSitesAndImagesOfTheCatalog() {
        await(vms.create(spec("web", "root-disk"), "virginia"));
        assertRefused(() -> await(vms.create(spec("web", "data"), "taiwan")), ErrorCode.VM_EXISTS, "VM 'web' already exists");
        assertRefused(() -> await(vms.create(spec("db", "root-disk"), "oregon")), ErrorCode.SITE_NOT_FOUND, "site 'oregon' is not registered");
        assertRefused(() -> await(vms.create(spec("db", "root-disk", "missing"), "virginia")), ErrorCode.IMAGE_NOT_FOUND,
                "image 'missing' does not exist");
        assertRefused(() -> await(vms.get("db")), ErrorCode.VM_NOT_FOUND, "VM 'db' does not exist");
    }

    @Test
    void aDefinitionIsCheckedBeforeItIsStored() {
        assertRefused(() -> new VmSpec("Web", 256 * MIB, 1, List.of("data"), "", "", "", ""), ErrorCode.INVALID_ARGUMENT,
                "invalid VM name 'Web': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        assertRefused(() -> new VmSpec("web", 8 * MIB, 1, List.of("data"), "", "", "", ""), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': memory must be at least 16 MiB and a whole number of MiB, not 8388608 bytes");
        assertRefused(() -> new VmSpec("web", 16 * MIB + 4096, 1, List.of("data"), "", "", "", ""), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': memory must be at least 16 MiB and a whole number of MiB, not 16781312 bytes");
        assertRefused(() -> new VmSpec("web", 16 * MIB, 65, List.of("data"), "", "", "", ""), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': vCPUs must be 1 to 64, not 65");
        assertRefused(() -> new VmSpec("web", 16 * MIB, 0, List.of("data"), "", "", "", ""), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': vCPUs must be 1 to 64, not 0");
        assertRefused(() -> new VmSpec("web", 16 * MIB, 1, List.of("data"), "", "", "", "hvf"), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': accel must be tcg or kvm, not 'hvf'");
        assertRefused(() -> new VmSpec("web", 16 * MIB, 1, List.of(), "", "", "", ""), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': nothing to boot: give it a disk or a kernel");
        assertRefused(() -> new VmSpec("web", 16 * MIB, 1, List.of("data"), "", "/boot/initrd", "", ""), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': an initrd or a kernel command line needs a kernel");
        assertRefused(() -> new VmSpec("web", 16 * MIB, 1, List.of("data", "data"), "", "", "", ""), ErrorCode.INVALID_ARGUMENT,
                "VM 'web': each image may be one of its disks once, not [data, data]");
        assertRefused(() -> await(vms.get("../sites")), ErrorCode.INVALID_ARGUMENT,
                "invalid VM name '../sites': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
    }

    @Test
    void aMoveComparesTheVersionItWasAskedFor() {
        Vm created = await(vms.create(spec("web", "root-disk"), "virginia"));

        Vm moved = await(vms.move("web", "taiwan", created.version()));

        assertThat(moved.site()).isEqualTo("taiwan");
        assertThat(moved.version()).isEqualTo(created.version() + 1);
        assertRefused(() -> await(vms.move("web", "virginia", created.version())), ErrorCode.VM_BUSY,
                "VM 'web' changed since it was read (version 2, not 1); read it again");
        assertRefused(() -> await(vms.move("web", "oregon", moved.version())), ErrorCode.SITE_NOT_FOUND, "site 'oregon' is not registered");
        assertRefused(() -> await(vms.move("db", "taiwan", 1)), ErrorCode.VM_NOT_FOUND, "VM 'db' does not exist");
        assertThat(await(vms.get("web"))).isEqualTo(moved);
    }

    @Test
    void theHistoryKeepsTheNewestFiftyMigrations() {
        await(vms.create(spec("web", "root-disk"), "virginia"));
        for (int i = 1; i <= 53; i++) {
            await(vms.recordMigration("web", record("m" + i)));
        }

        Vm vm = await(vms.get("web"));

        assertThat(vm.migrations()).extracting(MigrationRecord::id)
                .containsExactlyElementsOf(IntStream.rangeClosed(4, 53).mapToObj(i -> "m" + i).toList());
        assertThat(vm.migrations().get(49)).isEqualTo(record("m53"));
        assertThat(vm.version()).isEqualTo(54);
    }

    @Test
    void aDeletedVmIsGoneWithItsHistory() {
        await(vms.create(spec("web", "root-disk"), "virginia"));
        await(vms.recordMigration("web", record("m1")));

        await(vms.delete("web"));

        assertRefused(() -> await(vms.get("web")), ErrorCode.VM_NOT_FOUND, "VM 'web' does not exist");
        assertRefused(() -> await(vms.delete("web")), ErrorCode.VM_NOT_FOUND, "VM 'web' does not exist");
        assertThat(await(vms.list())).isEmpty();
        assertThat(await(vms.create(spec("web", "data"), "taiwan")).migrations()).isEmpty();
    }

    @Test
    void aReportOfTheMigrationInFlightKeepsTheVersionTheDriverMovesWith() {
        Vm created = await(vms.create(spec("web", "root-disk"), "virginia"));
        clock.advance(Duration.ofSeconds(2));

        Vm reported = await(vms.reportMigration("web", inFlight("m1", "precopy", 100)));

        assertThat(reported.inFlight()).isEqualTo(inFlight("m1", "precopy", 100).reportedAt(clock.millis()));
        assertThat(reported.version()).as("a progress report").isEqualTo(created.version());
        assertThat(await(vms.get("web"))).isEqualTo(reported);
        Vm moved = await(vms.move("web", "taiwan", created.version()));
        assertThat(moved.inFlight()).isEqualTo(reported.inFlight());

        Vm recorded = await(vms.recordMigration("web", record("m1")));

        assertThat(recorded.inFlight()).isNull();
        assertThat(recorded.migrations()).containsExactly(record("m1"));
        assertThat(await(vms.reportMigration("web", inFlight("m1", "switchover", 0)))).as("a report that came late").isEqualTo(recorded);
        assertThat(await(vms.recordMigration("web", record("m1")))).as("a record sent again").isEqualTo(recorded);
        assertThat(controller.metrics().registry().get("heliotrope.migrations").tag("outcome", "rolled_back").counter().count()).isEqualTo(1);
        assertThat(await(vms.get("web")).inFlight()).isNull();
    }

    @Test
    void aMigrationInFlightIsStaleOnceItsDriverStopsReporting() {
        await(vms.create(spec("web", "root-disk"), "virginia"));
        MigrationInFlight reported = await(vms.reportMigration("web", inFlight("m1", "precopy", 100))).inFlight();

        assertThat(reported.staleAt(clock.millis() + MigrationInFlight.STALE_AFTER.toMillis())).isFalse();
        assertThat(reported.staleAt(clock.millis() + MigrationInFlight.STALE_AFTER.toMillis() + 1)).isTrue();
        assertThat(await(vms.reportMigration("web", null)).inFlight()).as("an empty report clears it").isNull();
        assertRefused(() -> inFlight("", "precopy", 0), ErrorCode.INVALID_ARGUMENT, "a migration in flight needs an id");
    }

    private static MigrationInFlight inFlight(String id, String phase, long ramRemaining) {
        return new MigrationInFlight(id, "virginia", "taiwan", phase, 1_700_000_000_000L, 0, 256 * MIB, ramRemaining, 4096, "operator", "e1");
    }

    private static VmSpec spec(String name, String... disks) {
        return new VmSpec(name, 256 * MIB, 2, List.of(disks), null, null, null, null);
    }

    private static MigrationRecord record(String id) {
        return new MigrationRecord(id, "virginia", "taiwan", MigrationOutcome.ROLLED_BACK, "the destination died", "operator", 1_700_000_000_000L,
                1_200_000, 180_000, 40_000, 256 * MIB, 4 * MIB, 64 * 1024, List.of(new DiskEpochs("root-disk", 3, 5)), "e1",
                1_700_000_001_000_000L, 1_700_000_001_010_000L, 1_700_000_001_050_000L, 1_700_000_001_180_000L);
    }
}
