package io.heliotrope.controller.catalog;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.service.ImageStatus;
import io.heliotrope.controller.site.Site;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.error.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

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
        await(service.registerSite(new Site("us-east", "h1:7410", "h1:10809", 0.05)));
        await(service.registerSite(new Site("eu-west", "h2:7410", "h2:10809", 0.02)));
        await(service.registerSite(new Site("us-east", "h3:7410", "h3:10809", 0.01)));

        assertThat(await(service.listSites())).containsExactly(
                new Site("eu-west", "h2:7410", "h2:10809", 0.02),
                new Site("us-east", "h3:7410", "h3:10809", 0.01));
        assertRefused(() -> new Site("US_East", "", "", 0), ErrorCode.INVALID_ARGUMENT,
                "invalid site name 'US_East': use 1 to 63 lowercase letters, digits or '-'");
        assertRefused(() -> new Site("x".repeat(64), "", "", 0), ErrorCode.INVALID_ARGUMENT,
                "invalid site name '" + "x".repeat(64) + "': use 1 to 63 lowercase letters, digits or '-'");
        assertRefused(() -> new Site("x", "", "", -1), ErrorCode.INVALID_ARGUMENT, "site 'x': egress price must be a finite number >= 0, not -1.0");
    }

    @Test
    void imagesAreCreatedWithDefaultsListedAndDeleted() {
        ImageStatus created = await(service.createImage(new ImageSpec("base.img_1", 1 << 30)));

        ImageConfig config = new ImageConfig("base.img_1", 1 << 30, 4096, NOW, PropagationMode.PROACTIVE, 1000, 1, TransitionTable.EMPTY,
                created.config().uuid());
        assertThat(created).isEqualTo(new ImageStatus(config, new Lease("", 0, 0, 0, 15_000, ""), 0, 0, Map.of(), 0, 0));
        TransitionTable table = new TransitionTable(List.of("a", "b"), List.of(0.25, 0.75, 1.0, 0.0));
        UUID vm = await(service.createImage(new ImageSpec("vm", 8192, PropagationMode.SYNC, 5, 1, table))).config().uuid();
        assertThat(await(service.listImages())).containsExactly(config,
                new ImageConfig("vm", 8192, 4096, NOW, PropagationMode.SYNC, 5, 1, table, vm));
        assertRefused(() -> await(service.createImage(new ImageSpec("vm", 4096))), ErrorCode.IMAGE_EXISTS, "image 'vm' already exists");

        await(service.deleteImage("vm"));

        assertThat(await(service.listImages())).containsExactly(config);
        assertRefused(() -> await(service.getImage("vm")), ErrorCode.IMAGE_NOT_FOUND, "image 'vm' does not exist");
        assertRefused(() -> await(service.deleteImage("vm")), ErrorCode.IMAGE_NOT_FOUND, "image 'vm' does not exist");
        assertThat(await(service.createImage(new ImageSpec("vm", 4096))).config().sizeBytes()).isEqualTo(4096);
    }

    @Test
    void anImageKeepsItsIdentityAndOneCreatedAgainUnderItsNameHasAnother() {
        UUID first = await(service.createImage(new ImageSpec("vm", 4096))).config().uuid();

        assertThat(first).isNotNull();
        assertThat(await(service.getImage("vm")).config().uuid()).isEqualTo(first);
        assertThat(await(service.listImages())).extracting(ImageConfig::uuid).containsExactly(first);
        await(service.deleteImage("vm"));
        UUID second = await(service.createImage(new ImageSpec("vm", 4096))).config().uuid();
        assertThat(second).isNotEqualTo(first);
        assertThat(await(service.getImage("vm")).config().uuid()).isEqualTo(second);
    }

    @Test
    void anImageFromBeforeIdentitiesGetsOneOnFirstReadAndKeepsIt() {
        ImageConfig created = await(service.createImage(new ImageSpec("old", 4096))).config();
        String path = new ZooKeeperLayout(root).image("old").config();
        ImageConfig legacy = new ImageConfig("old", 4096, 4096, NOW, PropagationMode.PROACTIVE, 1000, 1, TransitionTable.EMPTY, null);
        byte[] withoutUuid = new String(Json.write(legacy), UTF_8).replace(",\"uuid\":null", "").getBytes(UTF_8);
        assertThat(controller.zk().setData(path, withoutUuid, -1)).isTrue();

        UUID assigned = await(service.listImages()).get(0).uuid();
        assertThat(assigned).isNotNull().isNotEqualTo(created.uuid());
        assertThat(await(service.getImage("old")).config()).isEqualTo(created.withUuid(assigned));
        assertThat(controller.zk().readJson(path, ImageConfig.class).orElseThrow().value().uuid()).isEqualTo(assigned);
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
        assertRefused(() -> await(service.getImage("Nope")), ErrorCode.INVALID_ARGUMENT,
                "invalid image name 'Nope': use 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
}
