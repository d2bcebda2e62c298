package io.heliotrope.storage.peer;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.session.Controller;
import io.heliotrope.storage.session.ControllerSessions;
import io.heliotrope.storage.session.TestingController;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.peer.TestPeerService.filled;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The recovery of a dead sync holding at the next opener, c: site a (epoch 1) wrote with
 * sync copies at other sites and died; c fences and collects at those sites and commits
 * what they hold. The sites are memory stores behind their peer services, in this process.
 */
class TestSyncRecoverer {
    private static final long SIZE = 16 * BLOCK_SIZE;

    private final TestingController controller = new TestingController();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService storeCalls = BoundedExecutors.fixed("test-peer", 2, 64);
    private final TestingLocalPeers peers = new TestingLocalPeers();
    private final Map<String, MemoryBlockStore> stores = Map.of("b", new MemoryBlockStore(), "c", new MemoryBlockStore(), "d", new MemoryBlockStore());
    private final Controller writer = controller.forSite("a");

    TestSyncRecoverer() {
        controller.createImage("vm", SIZE);
        stores.forEach((site, store) -> peers.add(site, new PeerService(store, store.view(), PushPolicy.NEWER, TestingAdmissions.TRUSTING, storeCalls, storeCalls)));
    }

    @AfterEach
    void close() throws InterruptedException {
        scheduler.shutdownNow();
        BoundedExecutors.shutdown(storeCalls, Duration.ofSeconds(5));
        stores.values().forEach(MemoryBlockStore::close);
    }

    @Test
    void theNextOpenerCommitsTheAcknowledgedWritesTheSyncSitesHoldAndTheyRefuseLatePushes() {
        long epoch = writer.open("vm", 0).epoch();
        writer.recordSyncSites("vm", epoch, Set.of("b"));
        push("b", new Copy(1, Version.compose(epoch, 1), filled(1)), new Copy(2, Version.compose(epoch, 2), filled(2)));
        writer.flush("vm", epoch, List.of(new BlockVersion(1, Version.compose(epoch, 1), BlockState.DATA)), "a", false);
        push("b", new Copy(1, Version.compose(epoch, 3), filled(3)), new Copy(3, Version.compose(epoch, 4), null));
        controller.expire("vm");

        ImageSession session = open("c", Duration.ZERO);

        assertThat(controller.view("vm")).isEqualTo(Map.of(
                1L, new GlobalBlock(1, Version.compose(epoch, 3), "b"),
                2L, new GlobalBlock(2, Version.compose(epoch, 2), "b"),
                3L, new GlobalBlock(3, Version.compose(epoch, 4), null)));
        assertThat(controller.owed("vm").pending()).isFalse();
        assertThat(stores.get("c").view().entry(session.info().id(), 2)).isEqualTo(new GlobalBlock(2, Version.compose(epoch, 2), "b"));
        assertThat(session.stale(0, 3)).containsOnlyKeys(1L, 2L);
        // The dead writer's late push is refused: the committed copy at b stays.
        assertThat(push("b", new Copy(2, Version.compose(epoch, 5), filled(5)))).containsExactly(false);
        assertThat(peers.fetch("b", vm(), List.of(new Wanted(2, Version.compose(epoch, 2)))).join()).hasSize(1);
        assertThat(stores.get("b").view().fence(stores.get("b").image("vm").id())).isEqualTo(session.epoch());
    }

    @Test
    void anOpenerThatTookTheCopiesItselfHoldsWhatItRecovers() {
        long epoch = writer.open("vm", 0).epoch();
        writer.recordSyncSites("vm", epoch, Set.of("c"));
        push("c", new Copy(4, Version.compose(epoch, 1), filled(4)));
        controller.expire("vm");

        ImageSession session = open("c", Duration.ZERO);

        assertThat(controller.view("vm")).isEqualTo(Map.of(4L, new GlobalBlock(4, Version.compose(epoch, 1), "c")));
        assertThat(session.stale(0, 16)).isEmpty();
    }

    @Test
    void oneAnsweringSiteOfEachRecordedSetIsEnough() {
        long epoch = writer.open("vm", 0).epoch();
        writer.recordSyncSites("vm", epoch, Set.of("b", "d"));
        push("b", new Copy(5, Version.compose(epoch, 1), filled(5)));
        push("d", new Copy(5, Version.compose(epoch, 1), filled(5)));
        peers.down("d");
        controller.expire("vm");

        open("c", Duration.ZERO);

        assertThat(controller.view("vm")).isEqualTo(Map.of(5L, new GlobalBlock(5, Version.compose(epoch, 1), "b")));
    }

    @Test
    void withEverySiteOfASetSilentTheOpenFailsAndTheRecoveryStaysOwed() {
        long epoch = writer.open("vm", 0).epoch();
        writer.recordSyncSites("vm", epoch, Set.of("b"));
        writer.recordSyncSites("vm", epoch, Set.of("d"));
        push("b", new Copy(6, Version.compose(epoch, 1), filled(6)));
        push("d", new Copy(6, Version.compose(epoch, 2), filled(7)));
        peers.down("d");
        controller.expire("vm");

        assertThatThrownBy(() -> open("c", Duration.ofMillis(1200))).isInstanceOfSatisfying(HeliotropeException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE))
                .hasMessage("image 'vm': its last writer [a] died with acknowledged writes (epochs 1 to 1) that only sites [b, d] hold,"
                        + " and 1 of them answer: the image cannot open before one site of each of [[b], [d]] does, lest it lose those writes"
                        + " ({d=site d did not answer})");
        assertThat(controller.holder("vm")).isNull();
        assertThat(controller.owed("vm").pending()).isTrue();

        peers.up("d");
        open("c", Duration.ZERO);
        assertThat(controller.view("vm")).isEqualTo(Map.of(6L, new GlobalBlock(6, Version.compose(epoch, 2), "d")));
    }

    private ImageSession open(String site, Duration patience) {
        MemoryBlockStore store = stores.get(site);
        SyncRecoverer recoverer = new SyncRecoverer(site, peers, controller.forSite(site), store.view(), patience);
        return new ControllerSessions(site, store, store.view(), controller.forSite(site), recoverer, scheduler, Duration.ofMinutes(1), 1 << 20, Duration.ofMinutes(1))
                .open("vm");
    }

    private boolean[] push(String site, Copy... copies) {
        return peers.push(site, vm(), List.of(copies)).join();
    }

    private ImageRef vm() {
        return new ImageRef(controller.identity("vm"), "vm", SIZE);
    }
}
