package io.heliotrope.storage.peer;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class TestPeerService {
    private static final long SIZE = 16 * BLOCK_SIZE;

    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ExecutorService storeCalls = BoundedExecutors.fixed("test-store", 2, 64);
    private final ExecutorService bulkCalls = BoundedExecutors.fixed("test-bulk", 1, 64);
    private final PeerService service = new PeerService(store, store.view(), PushPolicy.NEWER, TestingAdmissions.TRUSTING, storeCalls, bulkCalls);
    private final ImageRef disk = new ImageRef(UUID.randomUUID(), "disk", SIZE);

    @AfterEach
    void close() throws InterruptedException {
        BoundedExecutors.shutdown(storeCalls, Duration.ofSeconds(5));
        BoundedExecutors.shutdown(bulkCalls, Duration.ofSeconds(5));
        store.close();
    }

    @Test
    void aFenceRefusesLatePushesOfTheEpochsBelowItAndOnlyGoesUp() {
        long old = Version.compose(3, 9);
        assertThat(service.push(disk, List.of(new Copy(1, old, filled(1)))).join()).containsExactly(true);

        assertThat(service.fence(disk, 5).join()).isEqualTo(5);
        assertThat(service.fence(disk, 4).join()).isEqualTo(5);

        long id = store.image("disk").id();
        assertThat(store.view().fence(id)).isEqualTo(5);
        assertThat(service.push(disk, List.of(new Copy(1, Version.compose(4, 1), filled(2)), new Copy(2, Version.compose(5, 1), filled(3)))).join())
                .containsExactly(false, true);
        assertThat(service.fetch(disk, List.of(new Wanted(1, old), new Wanted(2, Version.compose(5, 1)))).join())
                .extracting(Copy::block, Copy::version).containsExactly(tuple(1L, old), tuple(2L, Version.compose(5, 1)));
    }

    @Test
    void pushesThatRaceToMakeTheCopyOfANewImageAreAllHeld() throws Exception {
        ExecutorService pushers = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 200; round++) {
                ImageRef image = new ImageRef(UUID.randomUUID(), "new-" + round, SIZE);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<boolean[]>> pushes = new ArrayList<>();
                for (int block = 0; block < 4; block++) {
                    Copy copy = new Copy(block, Version.compose(1, 1), filled(block));
                    pushes.add(pushers.submit(() -> {
                        go.await();
                        return service.push(image, List.of(copy)).join();
                    }));
                }
                go.countDown();
                for (Future<boolean[]> push : pushes) {
                    // A sync writer whose copy is refused fails the client's write.
                    assertThat(push.get()).as("round %d", round).containsExactly(true);
                }
            }
        } finally {
            pushers.shutdownNow();
        }
    }

    @Test
    void aFenceMakesTheCopyOfAnImageNotSeenYetSoThatNoLatePushCreatesOne() {
        assertThat(service.fence(disk, 2).join()).isEqualTo(2);

        assertThat(service.push(disk, List.of(new Copy(0, Version.compose(1, 1), null))).join()).containsExactly(false);
        assertThat(store.view().fence(store.image("disk").id())).isEqualTo(2);
    }

    @Test
    void collectFindsExactlyTheCopiesOfTheEpochsAsked() {
        long id = store.createImage("disk", SIZE, disk.identity()).id();
        store.write(id, 1, filled(1), Version.compose(2, 7), SKIP, false);
        store.write(id, 2, filled(2), Version.compose(3, 1), SKIP, false);
        store.zeroBlocks(id, new long[] {3}, Version.compose(4, 2), SKIP, false);
        store.write(id, 4, filled(4), Version.compose(5, 1), SKIP, false);

        assertThat(service.collect(disk, 3, 4).join()).containsExactly(
                new BlockVersion(2, Version.compose(3, 1), BlockState.DATA), new BlockVersion(3, Version.compose(4, 2), BlockState.ZERO));
        assertThat(service.collect(new ImageRef(UUID.randomUUID(), "disk", SIZE), 1, 9).join()).isEmpty();
    }

    @Test
    void backgroundFetchesRunOnTheirOwnPoolSoThatForegroundFetchesNeverWaitBehindThem() throws Exception {
        long id = store.createImage("disk", SIZE, disk.identity()).id();
        store.write(id, 1, filled(7), 10, SKIP, false);
        List<Wanted> wanted = List.of(new Wanted(1, 10));
        CountDownLatch bulkBusy = new CountDownLatch(1);
        bulkCalls.execute(() -> awaitUninterruptibly(bulkBusy));

        CompletableFuture<List<Copy>> background = service.fetchInBackground(disk, wanted);
        assertThat(service.fetch(disk, wanted).get(5, TimeUnit.SECONDS)).extracting(Copy::block).containsExactly(1L);
        assertThat(background).isNotDone();
        bulkBusy.countDown();
        assertThat(background.get(5, TimeUnit.SECONDS)).extracting(Copy::block).containsExactly(1L);

        CountDownLatch storeBusy = new CountDownLatch(1);
        for (int thread = 0; thread < 2; thread++) {
            storeCalls.execute(() -> awaitUninterruptibly(storeBusy));
        }
        CompletableFuture<List<Copy>> foreground = service.fetch(disk, wanted);
        assertThat(service.fetchInBackground(disk, wanted).get(5, TimeUnit.SECONDS)).extracting(Copy::block).containsExactly(1L);
        assertThat(foreground).isNotDone();
        storeBusy.countDown();
        assertThat(foreground.get(5, TimeUnit.SECONDS)).hasSize(1);
    }

    @Test
    void fetchAnswersOnlyBlocksHeldAtExactlyTheVersionWanted() {
        long id = store.createImage("disk", SIZE, disk.identity()).id();
        store.write(id, 1, filled(7), 10, SKIP, false);
        store.write(id, 2, filled(8), 10, SKIP, false);

        List<Copy> copies = service.fetch(disk, List.of(new Wanted(1, 10), new Wanted(2, 9), new Wanted(3, 10), new Wanted(16, 10))).join();

        assertThat(copies).hasSize(1);
        assertThat(copies.get(0).block()).isEqualTo(1);
        assertThat(copies.get(0).version()).isEqualTo(10);
        assertThat(copies.get(0).data()).isEqualTo(filled(7));
    }

    @Test
    void aZeroMarkerAtTheVersionWantedIsACopyWithoutData() {
        long id = store.createImage("disk", SIZE, disk.identity()).id();
        store.zeroBlocks(id, new long[] {4}, 12, SKIP, false);

        List<Copy> copies = service.fetch(disk, List.of(new Wanted(4, 12))).join();

        assertThat(copies).extracting(Copy::block, Copy::version, Copy::zero).containsExactly(tuple(4L, 12L, true));
    }

    @Test
    void anImageRemovedAndCreatedAgainIsNotServedUnderTheOldIdentity() {
        long id = store.createImage("disk", SIZE, disk.identity()).id();
        store.write(id, 1, filled(7), 10, SKIP, false);
        assertThat(service.fetch(disk, List.of(new Wanted(1, 10))).join()).hasSize(1);

        store.deleteImage("disk");
        long again = store.createImage("disk", SIZE, UUID.randomUUID()).id();
        store.write(again, 1, filled(9), 10, SKIP, false);

        assertThat(service.fetch(disk, List.of(new Wanted(1, 10))).join()).isEmpty();
        assertThat(service.fetch(new ImageRef(UUID.randomUUID(), "other", SIZE), List.of(new Wanted(1, 10))).join()).isEmpty();
    }

    @Test
    void pushStoresNewerCopiesAndAnswersThatItHoldsOlderOnesWhereItHasANewerVersion() {
        long id = store.createImage("disk", SIZE, disk.identity()).id();
        store.write(id, 1, filled(1), 10, SKIP, false);
        store.write(id, 2, filled(2), 10, SKIP, false);

        boolean[] stored = service.push(disk, List.of(new Copy(1, 11, filled(3)), new Copy(2, 9, filled(4)), new Copy(3, 5, null), new Copy(16, 5, filled(5)))).join();

        assertThat(stored).as("block 2: a newer version is here, block 16: beyond the end").containsExactly(true, true, true, false);
        assertThat(read(id, 1)).isEqualTo(filled(3));
        assertThat(read(id, 2)).isEqualTo(filled(2));
        assertThat(store.usage(id).zeroBlocks()).isEqualTo(1);
    }

    @Test
    void pushFollowsTheRuleOfThePolicyForTheImage() {
        long id = store.createImage("disk", SIZE, disk.identity()).id();
        CopyRule onlyEvenBlocks = (copy, local) -> copy.block() % 2 == 0;
        PeerService picky = new PeerService(store, store.view(), image -> image.id() == id ? onlyEvenBlocks : CopyRule.NEWER, TestingAdmissions.TRUSTING, storeCalls, bulkCalls);

        assertThat(picky.push(disk, List.of(new Copy(1, 5, filled(1)), new Copy(2, 5, filled(2)))).join()).containsExactly(false, true);
    }

    @Test
    void pushToASiteWithoutTheImageMakesItsCopyWithTheIdentity() {
        assertThat(service.push(disk, List.of(new Copy(5, 3, filled(6)))).join()).containsExactly(true);

        ImageInfo copy = store.image("disk");
        assertThat(copy.identity()).isEqualTo(disk.identity());
        assertThat(copy.sizeBytes()).isEqualTo(SIZE);
        assertThat(read(copy.id(), 5)).isEqualTo(filled(6));
    }

    @Test
    void pushToANameThatAnotherImageHoldsHereIsRefused() {
        long id = store.createImage("disk", SIZE, UUID.randomUUID()).id();

        assertThat(service.push(disk, List.of(new Copy(5, 3, filled(6)))).join()).containsExactly(false);
        assertThat(store.usage(id).dataBlocks()).isZero();
    }

    @Test
    void aCopyMadeBeforeIdentitiesIsServedByItsName() {
        long id = store.createImage("disk", SIZE).id();
        store.write(id, 1, filled(7), 10, SKIP, false);

        assertThat(service.fetch(disk, List.of(new Wanted(1, 10))).join()).hasSize(1);
    }

    @Test
    void anImageWithoutIdentityIsRefused() {
        ImageRef standalone = new ImageRef(null, "disk", SIZE);

        assertThatThrownBy(() -> service.push(standalone, List.of()).join())
                .cause()
                .isInstanceOfSatisfying(HeliotropeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessage("image disk: peers name images by their identity, and this one has none");
        assertThat(store.listImages()).isEmpty();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private ByteBuffer read(long id, long block) {
        ByteBuffer data = ByteBuffer.allocate(BLOCK_SIZE);
        store.read(id, block, 1, data);
        return data.flip();
    }

    static ByteBuffer filled(int value) {
        byte[] data = new byte[BLOCK_SIZE];
        Arrays.fill(data, (byte) value);
        return ByteBuffer.wrap(data);
    }
}
