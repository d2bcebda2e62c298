package io.heliotrope.controller.lease;

import io.heliotrope.controller.TestingClock;
import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.catalog.ReplicationUpdate;
import io.heliotrope.controller.catalog.TransitionTable;
import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.metadata.Flush;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;

import static io.heliotrope.controller.TestingController.LEASE_TTL;
import static io.heliotrope.controller.TestingController.await;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(ZooKeeperExtension.class)
class TestLeaseMoves {
    private final TestingClock clock = new TestingClock(1_700_000_000_000L);
    private TestingController controller;
    private ControllerService service;

    @BeforeEach
    void start(EmbeddedZooKeeper zooKeeper) {
        controller = TestingController.withImage(zooKeeper, clock, "vm", "a", "b", "c");
        service = controller.service();
    }

    @AfterEach
    void stop() {
        controller.close();
    }

    @Test
    void aGrantAfterAnotherSiteReleasedCountsOneMoveAndAReopenNone() {
        Lease a = controller.openForWrite("vm", "a");
        await(service.closeImage("vm", "a", a.epoch()));
        Lease b = controller.openForWrite("vm", "b");
        controller.openForWrite("vm", "b");
        await(service.closeImage("vm", "b", b.epoch() + 1));
        controller.openForWrite("vm", "b");

        assertThat(moves()).isEqualTo(new LeaseMoves("b", Map.of("a", Map.of("b", 1L))));
    }

    @Test
    void aHandoffCountsOnceWithOrWithoutADelta() {
        Lease a = controller.openForWrite("vm", "a");
        await(service.prepare("vm", "a", "b"));
        Lease b = await(service.flush(new Flush("vm", "a", a.epoch(), false, "b", entries("a", a.epoch())))).lease();
        await(service.prepare("vm", "b", "a"));
        await(service.flush(new Flush("vm", "b", b.epoch(), false, "a", BlockEntries.builder().build())));

        assertThat(moves()).isEqualTo(new LeaseMoves("a", Map.of("a", Map.of("b", 1L), "b", Map.of("a", 1L))));
    }

    @Test
    void takingOverAnExpiredLeaseIsAMove() {
        controller.openForWrite("vm", "a");
        clock.advance(LEASE_TTL);
        controller.openForWrite("vm", "c");

        assertThat(moves()).isEqualTo(new LeaseMoves("c", Map.of("a", Map.of("c", 1L))));
    }

    @Test
    void theTableSitesGetBlendsTheHintWithTheMovesAndGivesASiteWithNeitherTheDefaultRow() {
        TransitionTable hint = new TransitionTable(List.of("a", "b"), List.of(0.0, 1.0, 0.0, 0.0));
        await(service.setImage("vm", new ReplicationUpdate(null, null, null, null, null, null, null, hint, null, null)));
        for (String site : List.of("a", "c", "a", "c")) {
            Lease lease = controller.openForWrite("vm", site);
            await(service.closeImage("vm", site, lease.epoch()));
        }

        TransitionTable.Filled filled = await(service.getImage("vm")).image().transitions();

        TransitionTable table = filled.table();
        assertThat(table.sites()).containsExactly("a", "b", "c");
        assertThat(table.row("a")).containsExactly(Map.entry("b", 10 / 12.0), Map.entry("c", 2 / 12.0));
        assertThat(table.row("c")).containsExactly(Map.entry("a", 1.0));
        assertThat(table.row("b")).as("nothing moved from b: the fleet's default").containsExactly(Map.entry("a", 0.5), Map.entry("c", 0.5));
        assertThat(filled.defaultRows()).containsExactly("b");
        assertThat(await(service.getImage("vm")).image().config().transitions()).isEqualTo(hint);
    }

    @Test
    void theDefaultRowLeansWhereOtherImagesMovedOnceThePriorIsCountedAgain() {
        controller.createImage("other", 1024);
        for (String site : List.of("a", "c")) {
            Lease lease = controller.openForWrite("other", site);
            await(service.closeImage("other", site, lease.epoch()));
        }

        assertThat(await(service.getImage("vm")).image().transitions().table().row("a")).as("counted before the move, kept for 30 s")
                .containsExactly(Map.entry("b", 0.5), Map.entry("c", 0.5));
        clock.advance(ControllerService.PRIOR_TTL);

        TransitionTable.Filled filled = await(service.getImage("vm")).image().transitions();
        assertThat(filled.table().row("a")).containsExactly(Map.entry("b", 1 / 3.0), Map.entry("c", 2 / 3.0));
        assertThat(filled.defaultRows()).containsExactly("a", "b", "c");
        assertThat(await(service.listImages())).as("other has a row of its own").extracting(image -> image.transitions().table().row("a").get("c"))
                .containsExactlyInAnyOrder(2 / 3.0, 1.0);
    }

    @Test
    void undoingAMoveTakesItsCountBackAndMakesItsSourceTheLastHolder() {
        LeaseMoves moves = new LeaseMoves("b", Map.of("a", Map.of("b", 2L, "c", 1L), "c", Map.of("a", 1L)));
        assertThat(moves.undone("a", "b")).isEqualTo(new LeaseMoves("a", Map.of("a", Map.of("b", 1L, "c", 1L), "c", Map.of("a", 1L))));
        assertThat(moves.undone("c", "a")).isEqualTo(new LeaseMoves("c", Map.of("a", Map.of("b", 2L, "c", 1L))));
        assertThat(moves.undone("a", "b").undone("a", "b").undone("a", "c")).isEqualTo(new LeaseMoves("a", Map.of("c", Map.of("a", 1L))));
    }

    private LeaseMoves moves() {
        return await(service.getImage("vm")).image().moves();
    }

    private static BlockEntries entries(String site, long epoch) {
        return BlockEntries.builder().add(7, Version.compose(epoch, 1), site).build();
    }
}
