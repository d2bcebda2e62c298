package io.heliotrope.controller.catalog;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.lease.SyncRecovery;
import io.heliotrope.controller.lease.LeaseMoves;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ImageStatus;
import io.heliotrope.controller.service.OpenMode;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.error.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.heliotrope.controller.HeliotropeAssertions.assertRefused;
import static io.heliotrope.controller.TestingController.await;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(ZooKeeperExtension.class)
class TestImageCatalog {
    private static final long NOW = 1_700_000_000_000L;

    private final String root = TestingController.newRoot();
    private TestingController controller;
    private ControllerService service;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = new TestingController(zooKeeper, root, new TestingClock(NOW), TestingController.MANUAL);
        service = controller.service();
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void sitesAreUpsertedAndListed() {
        await(service.registerSite(new Site("us-east", "h1:7410", "h1:10809", 0.05, 0, 0)));
        await(service.registerSite(new Site("eu-west", "h2:7410", "h2:10809", 0.02, 8L << 30, 250)));
        await(service.registerSite(new Site("us-east", "h3:7410", "h3:10809", 0.01, 0, 0)));

        assertThat(await(service.listSites())).containsExactly(
                new Site("eu-west", "h2:7410", "h2:10809", 0.02, 8L << 30, 250),
                new Site("us-east", "h3:7410", "h3:10809", 0.01, 0, 1000));
        assertRefused(() -> new Site("US_East", "", "", 0, 0, 0), ErrorCode.INVALID_ARGUMENT,
                "invalid site name 'US_East': use 1 to 63 lowercase letters, digits or '-'");
        assertRefused(() -> new Site("x".repeat(64), "", "", 0, 0, 0), ErrorCode.INVALID_ARGUMENT,
                "invalid site name '" + "x".repeat(64) + "': use 1 to 63 lowercase letters, digits or '-'");
        assertRefused(() -> new Site("x", "", "", -1, 0, 0), ErrorCode.INVALID_ARGUMENT, "site 'x': egress price must be a finite number >= 0, not -1.0");
        assertRefused(() -> new Site("x", "", "", 0, -1, 0), ErrorCode.INVALID_ARGUMENT,
                "site 'x': VM memory and intra-site RTT must be at most 9223372036854775807, not 18446744073709551615 bytes and 0 us");
    }

    @Test
    void imagesAreCreatedWithDefaultsListedAndDeleted() {
        ImageStatus created = await(service.createImage(new ImageSpec("base.img_1", 1 << 30)));

        ImageConfig config = new ImageConfig("base.img_1", 1 << 30, 4096, NOW, PropagationMode.PROACTIVE, 1000, 1, TransitionTable.EMPTY,
                created.image().config().uuid(), "", 1, 0, 0, PullMode.UNSPECIFIED, 0);
        assertThat(created).isEqualTo(new ImageStatus(new CatalogImage(config, LeaseMoves.NONE), new Lease("", 0, 0, 0, 15_000, "", List.of(), SyncRecovery.NONE, 0, ""), 0, 0, Map.of(), 0, 0));
        controller.registerSites("a");
        TransitionTable table = new TransitionTable(List.of("a", "b"), List.of(0.25, 0.75, 1.0, 0.0));
        ReplicationUpdate sync = new ReplicationUpdate(PropagationMode.SYNC, 5.5, 0.0, "a", 2, 100L << 20, 50L << 30, table, PullMode.OFF, null);
        UUID vm = await(service.createImage(new ImageSpec("vm", 8192, sync))).image().config().uuid();
        assertThat(await(service.listImages())).extracting(CatalogImage::config).containsExactly(config,
                new ImageConfig("vm", 8192, 4096, NOW, PropagationMode.SYNC, 5.5, 0, table, vm, "a", 2, 100L << 20, 50L << 30, PullMode.OFF, 0));
        assertRefused(() -> await(service.createImage(new ImageSpec("vm", 4096))), ErrorCode.IMAGE_EXISTS, "image 'vm' already exists");

        await(service.deleteImage("vm"));

        assertThat(await(service.listImages())).extracting(CatalogImage::config).containsExactly(config);
        assertRefused(() -> await(service.getImage("vm")), ErrorCode.IMAGE_NOT_FOUND, "image 'vm' does not exist");
        assertRefused(() -> await(service.deleteImage("vm")), ErrorCode.IMAGE_NOT_FOUND, "image 'vm' does not exist");
        assertThat(await(service.createImage(new ImageSpec("vm", 4096))).image().config().sizeBytes()).isEqualTo(4096);
    }

    @Test
    void settingsChangeByCompareAndSetAndKeepWhatIsNotSet() {
        controller.registerSites("a", "b");
        await(service.createImage(new ImageSpec("vm", 4096)));
        TransitionTable hint = new TransitionTable(List.of("a", "b"), List.of(0.1, 0.9, 0.0, 0.0));

        ImageStatus set = await(service.setImage("vm", new ReplicationUpdate(PropagationMode.ON_DEMAND, 0.5, null, "b", null, 1000L, null, hint, PullMode.ON, null)));
        ImageStatus again = await(service.setImage("vm", new ReplicationUpdate(null, null, 2.5, null, 3, null, 7L, null, null, null)));

        ImageConfig config = again.image().config();
        assertThat(set.image().config().s()).isEqualTo(1);
        assertThat(List.of(config.mode(), config.k(), config.s(), config.home(), config.syncCopies(), config.bandwidthBytesPerSecond(),
                config.budgetBytesPerDay(), config.transitions(), config.pull())).containsExactly(PropagationMode.ON_DEMAND, 0.5, 2.5, "b", 3, 1000L, 7L, hint,
                PullMode.ON);
        assertThat(await(service.getImage("vm")).image().config()).isEqualTo(config);
        assertThat(await(service.setImage("vm", new ReplicationUpdate(null, null, null, null, null, null, null, TransitionTable.EMPTY, null, null)))
                .image().config().transitions()).isEqualTo(TransitionTable.EMPTY);
        assertThat(await(service.setImage("vm", pull(PullMode.UNSPECIFIED))).image().config().pull()).as("back to the mode's default")
                .isEqualTo(PullMode.UNSPECIFIED);
    }

    @Test
    void syncMinIsEveryCopyUnlessSetAndFollowsTheSyncCopiesThen() {
        controller.registerSites("a");
        await(service.createImage(new ImageSpec("vm", 4096)));

        assertThat(await(service.getImage("vm")).image().config().syncMinCopies()).as("sync copies 1 and this site's").isEqualTo(2);
        assertThat(await(service.setImage("vm", new ReplicationUpdate(null, null, null, null, 2, null, null, null, null, null))).image().config()
                .syncMinCopies()).isEqualTo(3);
        ImageConfig degradable = await(service.setImage("vm", syncMin(1))).image().config();
        assertThat(List.of(degradable.syncMin(), degradable.syncMinCopies(), degradable.syncCopies())).containsExactly(1, 1, 2);
        assertThat(await(service.setImage("vm", syncMin(0))).image().config().syncMinCopies()).as("back to the default").isEqualTo(3);
    }

    @Test
    void thePullIsTheModesDefaultUnlessSetAndNeverOnForARemoteImage() {
        controller.registerSites("a");
        await(service.createImage(new ImageSpec("vm", 4096)));
        ImageConfig proactive = await(service.getImage("vm")).image().config();

        assertThat(List.of(proactive.pull(), proactive.pulls())).containsExactly(PullMode.UNSPECIFIED, true);
        assertThat(pulls(PropagationMode.SYNC, PullMode.UNSPECIFIED)).isTrue();
        assertThat(pulls(PropagationMode.ON_DEMAND, PullMode.UNSPECIFIED)).isFalse();
        assertThat(pulls(PropagationMode.REMOTE, PullMode.UNSPECIFIED)).isFalse();
        assertThat(pulls(PropagationMode.ON_DEMAND, PullMode.ON)).isTrue();
        assertThat(pulls(PropagationMode.PROACTIVE, PullMode.OFF)).isFalse();
        assertThat(pulls(PropagationMode.REMOTE, PullMode.OFF)).isFalse();
        String remote = "image 'vm': a remote image keeps no copies away from its home, so it cannot be pulled: turn its pull off or choose another mode";
        assertRefused(() -> await(service.setImage("vm", new ReplicationUpdate(PropagationMode.REMOTE, null, null, "a", null, null, null, null,
                PullMode.ON, null))), ErrorCode.INVALID_ARGUMENT, remote);
        await(service.setImage("vm", pull(PullMode.ON)));
        assertRefused(() -> await(service.setImage("vm", new ReplicationUpdate(PropagationMode.REMOTE, null, null, "a", null, null, null, null, null, null))),
                ErrorCode.INVALID_ARGUMENT, remote);
        assertRefused(() -> await(service.createImage(new ImageSpec("far", 4096, new ReplicationUpdate(PropagationMode.REMOTE, null, null, "a", null,
                null, null, null, PullMode.ON, null)))), ErrorCode.INVALID_ARGUMENT, remote.replace("'vm'", "'far'"));
        assertThat(await(service.getImage("vm")).image().config().pull()).isEqualTo(PullMode.ON);
    }

    @Test
    void badSettingsAreRefusedAndChangeNothing() {
        controller.registerSites("a");
        ImageConfig created = await(service.createImage(new ImageSpec("vm", 4096))).image().config();

        assertRefused(() -> await(service.setImage("vm", kAndS(-1.0, null))), ErrorCode.INVALID_ARGUMENT, "image 'vm': K must be a finite number >= 0, not -1.0");
        assertRefused(() -> await(service.setImage("vm", kAndS(null, Double.NaN))), ErrorCode.INVALID_ARGUMENT, "image 'vm': S must be a finite number >= 0, not NaN");
        assertRefused(() -> await(service.setImage("vm", kAndS(Double.POSITIVE_INFINITY, null))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': K must be a finite number >= 0, not Infinity");
        assertRefused(() -> await(service.setImage("vm", ReplicationUpdate.home("Virginia"))), ErrorCode.INVALID_ARGUMENT,
                "invalid site name 'Virginia': use 1 to 63 lowercase letters, digits or '-'");
        assertRefused(() -> await(service.setImage("vm", ReplicationUpdate.home("b"))), ErrorCode.SITE_NOT_FOUND, "site 'b' is not registered");
        assertRefused(() -> new ReplicationUpdate(null, null, null, null, 0, null, null, null, null, null), ErrorCode.INVALID_ARGUMENT,
                "sync copies must be at least 1, not 0");
        assertRefused(() -> await(service.setImage("vm", new ReplicationUpdate(null, null, null, null, 64, null, null, null, null, null))),
                ErrorCode.INVALID_ARGUMENT, "image 'vm': sync copies must be between 1 and 63, not 64");
        assertRefused(() -> await(service.setImage("vm", syncMin(3))), ErrorCode.INVALID_ARGUMENT,
                "image 'vm': sync min must be between 1 and sync copies + 1 (2), or 0 for that default, not 3");
        assertRefused(() -> await(service.setImage("vm", syncMin(-1))), ErrorCode.INVALID_ARGUMENT,
                "sync min must be at least 1 (0: the default), not 4294967295");
        assertRefused(() -> await(service.setImage("vm", new ReplicationUpdate(null, null, null, null, null, -1L, null, null, null, null))),
                ErrorCode.INVALID_ARGUMENT, "image 'vm': bandwidth cap and daily budget must be >= 0 (0: none), not 18446744073709551615 and 0");
        assertRefused(() -> await(service.createImage(new ImageSpec("other", 4096, ReplicationUpdate.home("b")))), ErrorCode.SITE_NOT_FOUND,
                "site 'b' is not registered");
        assertThat(await(service.getImage("vm")).image().config()).isEqualTo(created);
    }

    @Test
    void theFirstWriterBecomesTheHomeUnlessOneWasChosen() {
        controller.registerSites("a", "b");
        await(service.createImage(new ImageSpec("vm", 4096)));
        await(service.createImage(new ImageSpec("chosen", 4096, ReplicationUpdate.home("a"))));

        assertThat(await(service.openImage("vm", "b", OpenMode.WRITE, 0, Duration.ZERO)).image().config().home()).isEqualTo("b");
        controller.openForWrite("chosen", "b");

        assertThat(await(service.getImage("vm")).image().config().home()).isEqualTo("b");
        assertThat(await(service.getImage("chosen")).image().config().home()).isEqualTo("a");
    }

    @Test
    void aConfigFromBeforeReplicationSettingsLoadsWithTheirDefaults() {
        ImageConfig created = await(service.createImage(new ImageSpec("old", 4096))).image().config();
        String legacy = "{\"name\":\"old\",\"sizeBytes\":4096,\"blockSize\":4096,\"createdEpochMillis\":" + NOW
                + ",\"mode\":\"SYNC\",\"k\":500,\"s\":2,\"transitions\":{\"sites\":[],\"probabilities\":[]},\"uuid\":\"" + created.uuid() + "\"}";
        assertThat(controller.zk().setData(new ZooKeeperLayout(root).image("old").config(), legacy.getBytes(UTF_8), -1)).isTrue();

        assertThat(await(service.getImage("old")).image().config()).isEqualTo(
                new ImageConfig("old", 4096, 4096, NOW, PropagationMode.SYNC, 500, 2, TransitionTable.EMPTY, created.uuid(), "", 1, 0, 0,
                        PullMode.UNSPECIFIED, 0));
        assertThat(await(service.getImage("old")).image().config().pulls()).as("sync pulls by default").isTrue();
    }

    @Test
    void thePullSettingIsStoredInTheConfig() {
        await(service.createImage(new ImageSpec("vm", 4096, pull(PullMode.OFF))));

        String json = new String(controller.zk().read(new ZooKeeperLayout(root).image("vm").config()).orElseThrow().value(), UTF_8);

        assertThat(json).contains("\"pull\":\"OFF\"");
        assertThat(await(service.getImage("vm")).image().config().pulls()).isFalse();
    }

    @Test
    void badSpecsAreRefused() {
        assertRefused(() -> new ImageSpec("vm", 4095), ErrorCode.INVALID_ARGUMENT,
                "invalid size 4095 for image 'vm': must be a positive multiple of 4096 bytes, at most 1 PiB");
        assertRefused(() -> new ImageSpec("vm", 0), ErrorCode.INVALID_ARGUMENT,
                "invalid size 0 for image 'vm': must be a positive multiple of 4096 bytes, at most 1 PiB");
        assertRefused(() -> new ImageSpec("a/b", 4096), ErrorCode.INVALID_ARGUMENT,
                "invalid image name 'a/b': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        assertRefused(() -> new ImageSpec("..", 4096), ErrorCode.INVALID_ARGUMENT,
                "invalid image name '..': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        assertRefused(() -> new ImageSpec("_scratch", 4096), ErrorCode.INVALID_ARGUMENT,
                "invalid image name '_scratch': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        assertRefused(() -> new ImageSpec("-x", 4096), ErrorCode.INVALID_ARGUMENT,
                "invalid image name '-x': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
        assertRefused(() -> new TransitionTable(List.of("a", "b"), List.of(0.5, 0.5, 0.5)), ErrorCode.INVALID_ARGUMENT,
                "invalid transition table: it has 3 probabilities for 2 sites, needs 4");
        assertRefused(() -> new TransitionTable(List.of("a", "b"), List.of(0.5, 0.5, 0.5, 0.4)), ErrorCode.INVALID_ARGUMENT,
                "invalid transition table: the row of b sums to 0.9, not 1");
        assertRefused(() -> new TransitionTable(List.of("a", "a"), List.of(1.0, 0.0, 0.0, 1.0)), ErrorCode.INVALID_ARGUMENT,
                "invalid transition table: it names a site twice: [a, a]");
        assertRefused(() -> new TransitionTable(List.of("a", "B"), List.of(1.0, 0.0, 0.0, 1.0)), ErrorCode.INVALID_ARGUMENT,
                "invalid site name 'B': use 1 to 63 lowercase letters, digits or '-'");
        assertRefused(() -> await(service.getImage("Nope")), ErrorCode.INVALID_ARGUMENT,
                "invalid image name 'Nope': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
    }

    private static ReplicationUpdate kAndS(Double k, Double s) {
        return new ReplicationUpdate(null, k, s, null, null, null, null, null, null, null);
    }

    private static ReplicationUpdate syncMin(int min) {
        return new ReplicationUpdate(null, null, null, null, null, null, null, null, null, min);
    }

    private static ReplicationUpdate pull(PullMode pull) {
        return new ReplicationUpdate(null, null, null, null, null, null, null, null, pull, null);
    }

    private static boolean pulls(PropagationMode mode, PullMode pull) {
        return new ImageConfig("vm", 4096, 4096, NOW, mode, 1000, 1, TransitionTable.EMPTY, UUID.randomUUID(), "a", 1, 0, 0, pull, 0).pulls();
    }
}
