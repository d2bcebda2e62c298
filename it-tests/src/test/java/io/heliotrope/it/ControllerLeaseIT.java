package io.heliotrope.it;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.it.ControllerClient.Opened;
import io.heliotrope.proto.controller.v1.FlushResponse;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.version.Version;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static io.heliotrope.error.ErrorCode.LEASE_HELD;
import static io.heliotrope.error.ErrorCode.STALE_LEASE;
import static io.heliotrope.it.ControllerClient.errorOf;
import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_READ;
import static io.heliotrope.proto.controller.v1.OpenMode.OPEN_MODE_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

/** Write leases across two controller processes on one ZooKeeper ensemble: one writer at a time, fenced by epochs, lost after the TTL. */
class ControllerLeaseIT {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final long SIZE = 1L << 30;
    private static final String SITE_A = "site-a";
    private static final String SITE_B = "site-b";

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(2, "--lease-ttl", "2s").withSites(SITE_A, SITE_B);

    /** Site A talks to the first controller, site B to the second: they race through ZooKeeper, not through one process. */
    private static ControllerClient a;
    private static ControllerClient b;

    @BeforeAll
    static void connectClients() {
        a = cluster.client(0);
        b = cluster.client(1);
    }

    @Test
    void racingOpensGrantOneLeaseEachRound() throws Exception {
        a.createImage("raced", SIZE);
        long epoch = a.status("raced").getLease().getEpoch();
        ExecutorService sites = Executors.newFixedThreadPool(2, runnable -> new Thread(runnable, "racing-site"));
        try {
            for (int round = 0; round < 30; round++) {
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Lease> ofA = sites.submit(() -> openOrNull(start, a, SITE_A));
                Future<Lease> ofB = sites.submit(() -> openOrNull(start, b, SITE_B));
                List<Lease> granted = Stream.of(ofA.get(), ofB.get()).filter(Objects::nonNull).toList();

                assertThat(granted).as("leases granted in round %d", round).hasSize(1);
                Lease lease = granted.get(0);
                assertThat(lease.getEpoch()).as("epoch granted in round %d", round).isEqualTo(epoch + 1);
                assertThat(b.status("raced").getLease().getHolder()).as("holder after round %d", round).isEqualTo(lease.getHolder());
                epoch = lease.getEpoch();
                (lease.getHolder().equals(SITE_A) ? a : b).close("raced", lease.getHolder(), epoch);
            }
        } finally {
            sites.shutdownNow();
        }
    }

    @Test
    void staleEpochFlushChangesNothing() {
        long firstEpoch = a.createAndOpenForWrite("fenced", SIZE, SITE_A);
        Delta committed = Delta.range(0, 100, SITE_A, Version.compose(firstEpoch, 1));
        FlushResponse flushed = a.flush("fenced", SITE_A, firstEpoch, committed, true);
        Lease current = b.open("fenced", SITE_B, OPEN_MODE_WRITE, flushed.getMetaSeq()).lease();
        ImageStatus before = b.status("fenced");

        Delta late = Delta.range(100, 100, SITE_A, Version.compose(firstEpoch, 2));
        assertThat(errorOf(() -> a.flush("fenced", SITE_A, firstEpoch, late, false))).isEqualTo(STALE_LEASE);

        assertThat(b.status("fenced")).isEqualTo(before);
        assertThat(before.getLease().getHolder()).isEqualTo(SITE_B);
        assertThat(before.getLease().getEpoch()).isEqualTo(current.getEpoch()).isGreaterThan(firstEpoch);
        assertThat(a.open("fenced", SITE_A, OPEN_MODE_READ, 0).blocks()).isEqualTo(committed.entries());
    }

    @Test
    void expiredLeaseFencesLateFlush() {
        a.createImage("expiring", SIZE);
        Lease held = a.open("expiring", SITE_A, OPEN_MODE_WRITE, 0).lease();
        assertThat(held.getTtlMillis()).isEqualTo(TTL.toMillis());
        Delta early = Delta.range(0, 10, SITE_A, Version.compose(held.getEpoch(), 1));
        FlushResponse flushed = a.flush("expiring", SITE_A, held.getEpoch(), early, false);
        long expiry = Math.max(held.getExpiresEpochMillis(), flushed.getLease().getExpiresEpochMillis());
        assertThat(errorOf(() -> b.open("expiring", SITE_B, OPEN_MODE_WRITE, 0))).isEqualTo(LEASE_HELD);

        AtomicReference<Opened> taken = new AtomicReference<>();
        Await.until("site B takes the lease that site A stopped renewing", TTL.multipliedBy(5), () -> {
            taken.set(openUnlessHeld(b, "expiring", SITE_B));
            return taken.get() != null;
        });

        Lease lease = taken.get().lease();
        assertThat(lease.getHolder()).isEqualTo(SITE_B);
        assertThat(lease.getEpoch()).isGreaterThan(held.getEpoch());
        assertThat(lease.getExpiresEpochMillis() - lease.getTtlMillis()).as("when B was granted the lease").isGreaterThanOrEqualTo(expiry);
        Delta late = Delta.range(10, 10, SITE_A, Version.compose(held.getEpoch(), 2));
        assertThat(errorOf(() -> a.flush("expiring", SITE_A, held.getEpoch(), late, false))).isEqualTo(STALE_LEASE);
        assertThat(errorOf(() -> a.renew("expiring", SITE_A, held.getEpoch()))).isEqualTo(STALE_LEASE);
        assertThat(b.status("expiring").getMetaSeq()).isEqualTo(flushed.getMetaSeq());
        assertThat(taken.get().blocks()).isEqualTo(early.entries());
    }

    @Test
    void renewedLeaseOutlivesTtl() throws Exception {
        a.createImage("renewed", SIZE);
        Lease held = a.open("renewed", SITE_A, OPEN_MODE_WRITE, 0).lease();
        AtomicReference<Lease> renewed = new AtomicReference<>(held);
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor(runnable -> new Thread(runnable, "lease-renewer"));
        try {
            renewer.scheduleAtFixedRate(() -> {
                try {
                    renewed.set(a.renew("renewed", SITE_A, held.getEpoch()));
                } catch (RuntimeException e) {
                    failure.set(e);
                    throw e;
                }
            }, 0, TTL.toMillis() / 4, TimeUnit.MILLISECONDS);
            Await.until("site A has renewed its lease two TTLs past the first expiry", TTL.multipliedBy(5), () -> {
                if (failure.get() != null) {
                    throw new AssertionError("renewal failed", failure.get());
                }
                return renewed.get().getExpiresEpochMillis() >= held.getExpiresEpochMillis() + 2 * TTL.toMillis();
            });

            assertThat(errorOf(() -> b.open("renewed", SITE_B, OPEN_MODE_WRITE, 0))).isEqualTo(LEASE_HELD);
            Delta delta = Delta.range(0, 10, SITE_A, Version.compose(held.getEpoch(), 1));
            assertThat(a.flush("renewed", SITE_A, held.getEpoch(), delta, false).getLease().getEpoch()).isEqualTo(held.getEpoch());
        } finally {
            renewer.shutdownNow();
            assertThat(renewer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Opens for write once both racers are ready; null when the other site won. */
    private static Lease openOrNull(CyclicBarrier start, ControllerClient client, String site) throws Exception {
        start.await(10, TimeUnit.SECONDS);
        Opened opened = openUnlessHeld(client, "raced", site);
        return opened == null ? null : opened.lease();
    }

    private static Opened openUnlessHeld(ControllerClient client, String image, String site) {
        try {
            return client.open(image, site, OPEN_MODE_WRITE, 0);
        } catch (HeliotropeException e) {
            if (e.code() == ErrorCode.LEASE_HELD) {
                return null;
            }
            throw e;
        }
    }
}
