package io.heliotrope.storage.peer;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.session.Controller.CatalogImage;
import io.heliotrope.version.Version;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCatalogCheck {
    private static final long SIZE = 16 * BLOCK_SIZE;

    private final UUID identity = UUID.randomUUID();
    /** The fake catalog: a name missing here is not found; a name mapped to a failure fails the lookup. */
    private final Map<String, CompletableFuture<CatalogImage>> catalog = new ConcurrentHashMap<>();
    private final AtomicInteger lookups = new AtomicInteger();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CatalogCheck check = new CatalogCheck(name -> {
        lookups.incrementAndGet();
        return catalog.getOrDefault(name, CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "no image " + name)));
    }, registry);

    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ExecutorService storeCalls = BoundedExecutors.fixed("test-store", 2, 64);
    private final PeerService service = new PeerService(store, store.view(), PushPolicy.NEWER, check, storeCalls, storeCalls);

    @AfterEach
    void close() throws InterruptedException {
        BoundedExecutors.shutdown(storeCalls, Duration.ofSeconds(5));
        store.close();
    }

    @Test
    void anImageOfTheCatalogAsNamedIsAdmittedAtTheCatalogsSize() {
        inCatalog("disk", identity, SIZE);

        assertThat(check.sizeOf(new ImageRef(identity, "disk", SIZE)).join()).isEqualTo(OptionalLong.of(SIZE));
        assertThat(refused()).isEqualTo(Map.of("unknown_image", 0.0, "identity", 0.0, "size", 0.0, "catalog_unavailable", 0.0));
    }

    @Test
    void anUnknownNameAnotherIdentityOrAnotherSizeIsRefusedAndCounted() {
        inCatalog("disk", identity, SIZE);

        assertThat(check.sizeOf(new ImageRef(identity, "forged", SIZE)).join()).isEmpty();
        assertThat(check.sizeOf(new ImageRef(UUID.randomUUID(), "disk", SIZE)).join()).isEmpty();
        assertThat(check.sizeOf(new ImageRef(identity, "disk", 1L << 40)).join()).isEmpty();
        assertThat(check.sizeOf(new ImageRef(identity, "disk", 2 * SIZE)).join()).isEmpty();

        assertThat(refused()).isEqualTo(Map.of("unknown_image", 1.0, "identity", 1.0, "size", 2.0, "catalog_unavailable", 0.0));
    }

    @Test
    void aCatalogThatCannotBeAskedFailsTheCallAsRetryableAndIsCounted() {
        catalog.put("disk", CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "controller down")));

        assertThatThrownBy(() -> check.sizeOf(new ImageRef(identity, "disk", SIZE)).join())
                .cause().isInstanceOf(HeliotropeException.class)
                .satisfies(e -> assertThat(((HeliotropeException) e).code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE));
        assertThat(refused()).containsEntry("catalog_unavailable", 1.0);
    }

    @Test
    void overlappingLookupsOfOneNameShareOneCall() {
        CompletableFuture<CatalogImage> answer = new CompletableFuture<>();
        catalog.put("disk", answer);

        CompletableFuture<OptionalLong> first = check.sizeOf(new ImageRef(identity, "disk", SIZE));
        CompletableFuture<OptionalLong> second = check.sizeOf(new ImageRef(identity, "disk", SIZE));
        answer.complete(catalogImage("disk", identity, SIZE));

        assertThat(first.join()).hasValue(SIZE);
        assertThat(second.join()).hasValue(SIZE);
        assertThat(lookups).hasValue(1);
        check.sizeOf(new ImageRef(identity, "disk", SIZE)).join();
        assertThat(lookups).as("a lookup after the answer asks again").hasValue(2);
    }

    @Test
    void aRefusedPushOrFenceMakesNoCopyAndHoldsNothing() {
        inCatalog("disk", identity, SIZE);
        List<Copy> copies = List.of(new Copy(0, Version.compose(1, 1), null), new Copy(1, Version.compose(1, 1), null));

        assertThat(service.push(new ImageRef(identity, "forged", SIZE), copies).join()).containsExactly(false, false);
        assertThat(service.push(new ImageRef(UUID.randomUUID(), "disk", SIZE), copies).join()).containsExactly(false, false);
        assertThat(service.push(new ImageRef(identity, "disk", 1L << 40), copies).join()).containsExactly(false, false);
        assertThat(service.fence(new ImageRef(identity, "forged", SIZE), 3).join()).isEqualTo(3);

        assertThat(store.listImages()).isEmpty();
        assertThat(refused()).isEqualTo(Map.of("unknown_image", 2.0, "identity", 1.0, "size", 1.0, "catalog_unavailable", 0.0));
    }

    @Test
    void anAdmittedPushMakesTheCopyOnceAndLaterPushesDoNotAsk() {
        inCatalog("disk", identity, SIZE);
        ImageRef disk = new ImageRef(identity, "disk", SIZE);

        assertThat(service.push(disk, List.of(new Copy(0, Version.compose(1, 1), null))).join()).containsExactly(true);
        catalog.put("disk", CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "controller down")));
        assertThat(service.push(disk, List.of(new Copy(1, Version.compose(1, 1), null))).join()).containsExactly(true);

        assertThat(store.image("disk").sizeBytes()).isEqualTo(SIZE);
        assertThat(store.image("disk").isCopyOf(identity)).isTrue();
        assertThat(lookups).hasValue(1);
    }

    @Test
    void aPushWhileTheCatalogCannotBeAskedFailsAsRetryableAndMakesNoCopy() {
        catalog.put("disk", CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "controller down")));

        assertThatThrownBy(() -> service.push(new ImageRef(identity, "disk", SIZE), List.of(new Copy(0, Version.compose(1, 1), null))).join())
                .cause().isInstanceOf(HeliotropeException.class)
                .satisfies(e -> assertThat(((HeliotropeException) e).code()).isEqualTo(ErrorCode.PEER_UNAVAILABLE));
        assertThat(store.listImages()).isEmpty();
    }

    private void inCatalog(String name, UUID id, long sizeBytes) {
        catalog.put(name, CompletableFuture.completedFuture(catalogImage(name, id, sizeBytes)));
    }

    private static CatalogImage catalogImage(String name, UUID id, long sizeBytes) {
        return new CatalogImage(name, id, sizeBytes, Replication.Mode.PROACTIVE, "", "", Map.of());
    }

    private Map<String, Double> refused() {
        Map<String, Double> counts = new ConcurrentHashMap<>();
        registry.get("heliotrope.peer.refused").counters().forEach(counter -> counts.put(counter.getId().getTag("reason"), counter.count()));
        return counts;
    }
}
